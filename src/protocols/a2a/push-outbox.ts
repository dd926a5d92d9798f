/**
 * A2A push notifications out (docs/protocols/a2a.md, "Push notifications"). The run bridge hands every
 * task event it stores to enqueue(): one delivery per config of the task is written to the outbox
 * (A2APushStore) first, then sent. A delivery leaves the outbox when its webhook answers 2xx, or when
 * it is given up: an answer that retrying cannot change (4xx but 408 and 429), PARLEY_A2A_PUSH_MAX_ATTEMPTS
 * sends, or a refused address. Network errors, timeouts, 408, 429 and 5xx are retried with exponential
 * backoff and jitter (a Retry-After asking for longer wins). Deliveries of one config go out one
 * at a time, in order; at most SEND_CONCURRENCY requests are in flight in all. What was queued when the
 * process stopped (kill -9 included) is sent after the next start. The run never waits on a webhook.
 */
import { V1PushNotificationSerializer, type ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { Task } from '@a2a-js/sdk';
import { sendChecked } from '../../http/outbound-guard.ts';
import type { Logger } from '../../log.ts';
import type { A2APushStore, PushDelivery } from '../../store/a2a-push/types.ts';
import type { TaskScope } from '../../store/a2a-tasks/types.ts';
import type { Cluster } from '../../cluster/types.ts';

export interface PushOutboxOptions {
  allowPrivate: boolean;
  maxAttempts: number;
  retryBaseMs: number;
  timeoutMs: number;
  scopeOf: (context: ServerCallContext) => TaskScope;
  /**
   * Replicas share one outbox (Postgres): a config's deliveries are sent by the replica holding its
   * lease, so each goes out once and in order; what a dead replica was sending is picked up after its lease.
   */
  cluster?: Cluster;
}

/** Replicas: how often a replica looks for deliveries another one left (its lease expired). */
const SHARED_SWEEP_MS = 5_000;

/** Queued deliveries one task may have; beyond it new ones are dropped (and logged): a dead webhook's backlog stays bounded. */
export const MAX_QUEUED_PER_TASK = 1000;
const SEND_CONCURRENCY = 4;
const MAX_DELAY_MS = 10 * 60_000;
const BATCH = 200;
/** The header the A2A SDK's default sender puts a config's token in (when it has no `authentication`). */
const TOKEN_HEADER = 'X-A2A-Notification-Token';

const RETRYABLE = (status: number) => status === 408 || status === 429 || status >= 500;
const configKey = (d: PushDelivery) => JSON.stringify([d.scope.tenant, d.scope.owner, d.taskId, d.configId]);

export class PushOutbox {
  readonly #store: A2APushStore;
  readonly #options: PushOutboxOptions;
  readonly #logger: Logger;
  readonly #serializer = new V1PushNotificationSerializer();
  /** Configs with a delivery in flight: the next of the same config waits for it. */
  readonly #inFlight = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #sweep: NodeJS.Timeout | undefined;
  #draining: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(store: A2APushStore, options: PushOutboxOptions, logger: Logger) {
    this.#store = store;
    this.#options = options;
    this.#logger = logger;
  }

  /** Sends what an earlier process left in the outbox. */
  start(): void {
    this.#kick();
    if (this.#options.cluster?.shared) {
      this.#sweep = setInterval(() => this.#kick(), SHARED_SWEEP_MS);
      this.#sweep.unref();
    }
  }

  /** Queues the event for every push config of its task (committed before it resolves), then sends. */
  async enqueue(event: AgentExecutionEvent, context: ServerCallContext, task: Task | undefined): Promise<void> {
    const taskId = event.kind === 'task' ? event.data.id : event.data.taskId;
    if (!taskId) return;
    const scope = this.#options.scopeOf(context);
    const configs = await this.#store.listConfigs(scope, taskId);
    if (configs.length === 0) return;
    if ((await this.#store.countQueued(scope, taskId)) + configs.length > MAX_QUEUED_PER_TASK) {
      this.#logger.warn('a2a push: too many undelivered notifications for the task; this one is dropped', {
        taskId,
        max: MAX_QUEUED_PER_TASK,
      });
      return;
    }
    const { body, contentType } = this.#serializer.serialize(
      { payload: { $case: event.kind, value: event.data } } as Parameters<V1PushNotificationSerializer['serialize']>[0],
      task,
    );
    const now = Date.now();
    await this.#store.enqueue(
      configs.map((c) => {
        const config = c.config as {
          url: string;
          token?: string;
          authentication?: { scheme?: string; credentials?: string };
        };
        const auth = config.authentication;
        const headers: Record<string, string> = { 'Content-Type': contentType };
        if (auth?.scheme && auth.credentials) headers.Authorization = `${auth.scheme} ${auth.credentials}`;
        else if (config.token) headers[TOKEN_HEADER] = config.token;
        return {
          scope,
          taskId,
          configId: c.id,
          url: config.url,
          headers,
          body,
          attempts: 0,
          notBefore: now,
          createdAt: now,
        };
      }),
    );
    this.#kick();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#sweep);
    await this.#draining;
    await Promise.all(this.#inFlight.values());
  }

  #kick(): void {
    if (this.#closed) return;
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#draining = this.#drain()
      .catch((err: unknown) => this.#logger.error('a2a push: reading the outbox failed', { error: String(err) }))
      .finally(() => {
        this.#draining = undefined;
        if (this.#again) {
          this.#again = false;
          this.#kick();
        }
      });
  }

  /** Starts every delivery that is due and free to go; arms the timer for the next one due. */
  async #drain(): Promise<void> {
    const queued = await this.#store.queued(BATCH);
    const now = Date.now();
    const blocked = new Set(this.#inFlight.keys());
    let nextDue = Infinity;
    for (const d of queued) {
      const key = configKey(d);
      if (blocked.has(key)) continue;
      // Later deliveries of the same config wait for this one, due or not: order per config.
      blocked.add(key);
      if (d.notBefore > now) {
        nextDue = Math.min(nextDue, d.notBefore);
        continue;
      }
      if (this.#inFlight.size >= SEND_CONCURRENCY) break;
      const cluster = this.#options.cluster?.shared ? this.#options.cluster : undefined;
      const lease = `push:${key}`;
      if (cluster && !(await cluster.acquireLease(lease, this.#options.timeoutMs + 30_000))) continue;
      const sending = this.#send(d).finally(() => {
        this.#inFlight.delete(key);
        // An unreleased lease expires on its own; the next send takes it again.
        if (cluster) void cluster.releaseLease(lease).catch(() => undefined);
        this.#kick();
      });
      this.#inFlight.set(key, sending);
    }
    clearTimeout(this.#timer);
    if (nextDue !== Infinity && !this.#closed) {
      this.#timer = setTimeout(() => this.#kick(), Math.max(0, nextDue - Date.now()));
      this.#timer.unref();
    }
  }

  async #send(d: PushDelivery): Promise<void> {
    let retryAfterMs = 0;
    try {
      // Checked again at send time, and sent to the address checked (http/outbound-guard.ts).
      const sent = await sendChecked(
        d.url,
        { method: 'POST', headers: d.headers, body: d.body, signal: AbortSignal.timeout(this.#options.timeoutMs) },
        { allowPrivate: this.#options.allowPrivate },
        async (res) => {
          await res.body?.cancel();
          return res;
        },
      );
      if (sent.refused !== undefined) return this.#giveUp(d, `refused: ${sent.refused}`);
      const res = sent.value;
      if (res.ok) {
        await this.#store.remove(d.seq);
        return;
      }
      if (!RETRYABLE(res.status)) return this.#giveUp(d, `the webhook answered ${res.status}`);
      retryAfterMs = retryAfter(res.headers.get('retry-after'));
      d.lastError = `the webhook answered ${res.status}`;
    } catch (err) {
      d.lastError = (err as Error).name === 'TimeoutError' ? 'timed out' : String((err as Error).message);
    }
    d.attempts++;
    if (d.attempts >= this.#options.maxAttempts) return this.#giveUp(d, `${d.attempts} attempts: ${d.lastError}`);
    const backoff = Math.min(MAX_DELAY_MS, this.#options.retryBaseMs * 2 ** (d.attempts - 1));
    d.notBefore = Date.now() + Math.max(retryAfterMs, backoff / 2 + Math.random() * (backoff / 2));
    await this.#store.reschedule(d);
  }

  async #giveUp(d: PushDelivery, why: string): Promise<void> {
    this.#logger.warn('a2a push: notification given up', { taskId: d.taskId, configId: d.configId, why });
    await this.#store.remove(d.seq);
  }
}

/** Retry-After in ms: delta-seconds or an HTTP date; 0 when absent or unreadable. */
function retryAfter(value: string | null): number {
  if (!value) return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.min(MAX_DELAY_MS, Math.max(0, seconds * 1000));
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : Math.min(MAX_DELAY_MS, Math.max(0, at - Date.now()));
}
