/**
 * ApprovalBroker: pending approvals as futures. request() hands back the issued request at once
 * (the engine announces it as a sideband event) and a promise that settles exactly once: by a
 * human through any channel (resolve), by the timeout (the configured default), or by
 * cancellation (abort signal, cancelRun, close). Every request and outcome is audited through an
 * injected recorder before the outcome is released, so nothing acts on an unrecorded decision.
 * With a run store, durable.ts commits requests and decisions; with replicas, replicas.ts relays what
 * the others hold and makes the first answer win.
 */
import { randomUUID } from 'node:crypto';
import { LOCAL_CALLER, canSee, type Caller } from '../identity/caller.ts';
import { silentLogger, type Logger } from '../log.ts';
import type {
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalPort,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalRequestInput,
  IssuedApproval,
  ResolveAnswer,
} from './types.ts';
import { checkDecision } from './decision-check.ts';
import { asksTheSame, forNewCallIds } from './restored-match.ts';
import type { ApprovalRecords } from '../store/runs/run-store.ts';
import type { Cluster } from '../cluster/types.ts';
import { ApprovalDurability } from './durable.ts';
import { ApprovalRelay } from './replicas.ts';

const MAX_TIMER_MS = 2_147_483_647;

export interface ApprovalBrokerOptions {
  /** Default wait before the default decision applies (config.approvals.timeoutMs). */
  timeoutMs: number;
  /** Applied to tool calls on timeout (config.approvals.defaultDecision). */
  defaultDecision: 'deny' | 'accept';
  /** The audit sink, normally KnowledgeStore.recordApproval (idempotent upsert by id). */
  recordApproval?: (record: ApprovalRecord) => Promise<void>;
  logger?: Logger;
  /**
   * The run store's approvals (docs/durability.md): a request is listed, answerable and announced
   * only once committed there, and a decision is committed before the run acts on it.
   */
  store?: ApprovalRecords;
  /** How many settled ids are remembered so a late resolve says "already resolved", not "not found". */
  rememberSettled?: number;
  /**
   * Replicas (docs/deployment.md): requests waiting on other replicas are listed and answered here too,
   * and the first answer on any replica wins. Needs `store` (the shared run store).
   */
  cluster?: Cluster;
}

interface Pending {
  request: ApprovalRequest;
  settle: (outcome: ApprovalOutcome) => void;
  timer: ReturnType<typeof setTimeout>;
  detachSignal: () => void;
  /** Audit writes for this request, in order (request first, then its outcome). */
  audit: Promise<void>;
  /** False until the run store has committed the request (always true without a store). */
  durable: boolean;
}

/** A request restored after a restart, until the resumed run asks for it again. */
interface Restored {
  request: ApprovalRequest;
  settled: Promise<ApprovalOutcome>;
  entry: Pending;
}

export class ApprovalBroker implements ApprovalPort {
  readonly #pending = new Map<string, Pending>();
  /** Settled ids and who owned them (so a late answer from another caller still reads "not found"). */
  readonly #settled = new Map<string, { outcome: ApprovalOutcome; callerId: string }>();
  readonly #restored = new Map<string, Restored>();
  readonly #options: Required<Omit<ApprovalBrokerOptions, 'recordApproval' | 'store' | 'cluster'>> &
    Pick<ApprovalBrokerOptions, 'recordApproval'>;
  /** Set only with a run store. */
  readonly #durable?: ApprovalDurability;
  /** Set only when other processes share the state. */
  readonly #relay?: ApprovalRelay;

  constructor(options: ApprovalBrokerOptions) {
    const { cluster, store, ...rest } = options;
    this.#options = { logger: silentLogger, rememberSettled: 1000, ...rest };
    if (store) this.#durable = new ApprovalDurability(store, this.#options.logger);
    if (cluster?.shared) {
      this.#relay = new ApprovalRelay(
        cluster,
        {
          holds: (id) => this.#pending.has(id),
          committed: () => [...this.#pending].filter(([, entry]) => entry.durable),
          applyStored: (id, outcome, token) => {
            const entry = this.#pending.get(id);
            if (entry?.durable && (token === undefined || entry === token)) this.#finish(id, outcome, { stored: true });
          },
          remember: (id, outcome, callerId) => this.#remember(id, outcome, callerId),
          settledOwner: (id) => this.#settled.get(id)?.callerId,
        },
        this.#durable,
        this.#options.logger,
      );
    }
  }

  /** Replicas: the pending requests of the shared store (replicas.ts, ApprovalRelay.sync). */
  syncRemote(pending: ApprovalRequest[]): void {
    this.#relay?.sync(pending);
  }

  request(input: ApprovalRequestInput, options: { timeoutMs?: number; signal?: AbortSignal } = {}): IssuedApproval {
    const adopted = this.#adopt(input, options.signal);
    if (adopted) return adopted;
    // setTimeout fires at once beyond 2^31-1 ms; clamp so a huge setting waits ~24 days, not 1 ms.
    const timeoutMs = Math.min(options.timeoutMs ?? this.#options.timeoutMs, MAX_TIMER_MS);
    const created = new Date();
    const request = {
      ...structuredClone(input),
      id: randomUUID(),
      createdAt: created.toISOString(),
      expiresAt: new Date(created.getTime() + timeoutMs).toISOString(),
    } as ApprovalRequest;

    let settle!: (outcome: ApprovalOutcome) => void;
    const settled = new Promise<ApprovalOutcome>((resolve) => (settle = resolve));
    const entry: Pending = {
      request,
      settle,
      timer: setTimeout(
        () =>
          this.#settleOnce(request.id, defaultOutcome(request, 'timeout', this.#options.defaultDecision, timeoutMs)),
        timeoutMs,
      ),
      detachSignal: () => {},
      audit: this.#record(toRecord(request)),
      durable: !this.#durable,
    };
    // A pending approval must never keep the process alive on its own.
    entry.timer.unref?.();
    this.#pending.set(request.id, entry);
    const stored = this.#store(request, entry);

    const outcome = settled.then(async (o) => {
      await entry.audit;
      return o;
    });

    this.#watch(entry, options.signal, timeoutMs);
    return { request: structuredClone(request), outcome, ...(stored ? { stored } : {}) };
  }

  /** The request's write to the run store; the entry becomes visible once it is committed. */
  #store(request: ApprovalRequest, entry: Pending): Promise<void> | undefined {
    return this.#durable?.putPending(request, ownerOf(request), (stored) => {
      // A broken store must not wedge the run: the request still waits, in this process only.
      entry.durable = true;
      if (stored) this.#relay?.pending(request);
    });
  }

  /** Cancels the request when the run's signal aborts. */
  #watch(entry: Pending, signal: AbortSignal | undefined, timeoutMs: number): void {
    if (!signal) return;
    const { request } = entry;
    const onAbort = () => this.#finish(request.id, defaultOutcome(request, 'cancelled', 'deny', timeoutMs));
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      entry.detachSignal = () => signal.removeEventListener('abort', onAbort);
    }
  }

  /** A restored request the resumed run asks for again: the same id, its outcome (maybe already decided). */
  #adopt(input: ApprovalRequestInput, signal: AbortSignal | undefined): IssuedApproval | undefined {
    if (this.#restored.size === 0) return undefined;
    for (const [id, restored] of this.#restored) {
      if (!asksTheSame(restored.request, input)) continue;
      this.#restored.delete(id);
      if (this.#pending.get(id) === restored.entry) this.#watch(restored.entry, signal, 0);
      const outcome = restored.settled.then(async (o) => {
        await restored.entry.audit;
        return forNewCallIds(o, restored.request, input);
      });
      return { request: structuredClone(restored.request), outcome, restored: true };
    }
    return undefined;
  }

  restore(requests: ApprovalRequest[], decided: Record<string, ApprovalOutcome> = {}): void {
    for (const request of requests) {
      if (this.#pending.has(request.id)) continue;
      this.#relay?.remote.delete(request.id);
      let settle!: (outcome: ApprovalOutcome) => void;
      const settled = new Promise<ApprovalOutcome>((resolve) => (settle = resolve));
      const outcome = decided[request.id];
      if (outcome) {
        // Answered (on another replica, or just before a crash) but not yet acted on: the run gets the answer.
        settle(outcome);
        const entry: Pending = {
          request,
          settle,
          timer: setTimeout(() => {}, 0),
          detachSignal: () => {},
          audit: Promise.resolve(),
          durable: true,
        };
        this.#restored.set(request.id, { request, settled, entry });
        continue;
      }
      const remaining = Math.min(Math.max(0, Date.parse(request.expiresAt) - Date.now()), MAX_TIMER_MS);
      const entry: Pending = {
        request,
        settle,
        timer: setTimeout(
          () =>
            this.#settleOnce(request.id, defaultOutcome(request, 'timeout', this.#options.defaultDecision, remaining)),
          remaining,
        ),
        detachSignal: () => {},
        audit: Promise.resolve(),
        durable: true,
      };
      entry.timer.unref?.();
      this.#pending.set(request.id, entry);
      this.#restored.set(request.id, { request, settled, entry });
      // It now waits here (a replica that took the run over): the others list it as this one's.
      this.#relay?.pending(request);
    }
  }

  suspendRun(runId: string): void {
    for (const [id, entry] of [...this.#pending]) {
      if (entry.request.runId !== runId) continue;
      this.#pending.delete(id);
      clearTimeout(entry.timer);
      entry.detachSignal();
    }
    for (const [id, restored] of [...this.#restored]) if (restored.request.runId === runId) this.#restored.delete(id);
  }

  async resolve(id: string, decision: ApprovalDecision, actor: string, caller?: Caller): Promise<ResolveAnswer> {
    const entry = this.#pending.get(id);
    const remote = entry ? undefined : this.#relay?.remote.get(id);
    const request = entry?.durable ? entry.request : remote;
    if (!request || !canSee(caller, ownerOf(request))) {
      const settled = entry ? undefined : this.#settled.get(id);
      return settled && canSee(caller, settled.callerId)
        ? alreadyResolved(id)
        : { ok: false, code: 'not_found', message: `no approval with id ${id}` };
    }
    const checked = checkDecision(request, decision);
    if (!checked.ok) return { ok: false, code: 'invalid', message: checked.message };
    const outcome: ApprovalOutcome = {
      requestId: id,
      decision: checked.decision,
      resolvedBy: 'human',
      actor,
      at: new Date().toISOString(),
    };
    // Postgres has the last word: a decision committed while Redis was away is not made twice.
    if (!entry && (await this.#durable?.isDecided(id))) return alreadyResolved(id);
    if (this.#relay && !(await this.#relay.claimOrDecideHere(id, outcome, entry !== undefined)))
      return alreadyResolved(id);
    if (entry) {
      // Settled meanwhile (a timeout, a cancellation) while the claim was on its way.
      if (this.#pending.get(id) !== entry) return alreadyResolved(id);
      this.#finish(id, outcome);
    } else {
      // Another replica holds the run: it is told once the decision is committed.
      await this.#relay!.decideRemote(request, ownerOf(request), outcome);
    }
    return { ok: true, outcome: structuredClone(outcome) };
  }

  get(id: string, caller?: Caller): ApprovalRequest | undefined {
    const entry = this.#pending.get(id);
    const request = entry?.durable ? entry.request : entry ? undefined : this.#relay?.remote.get(id);
    return request && canSee(caller, ownerOf(request)) ? structuredClone(request) : undefined;
  }

  listPending(runId?: string, caller?: Caller): ApprovalRequest[] {
    return [...this.#pending.values()]
      .filter((p) => p.durable)
      .map((p) => p.request)
      .concat([...(this.#relay?.remote.values() ?? [])])
      .filter((r) => (runId === undefined || r.runId === runId) && canSee(caller, ownerOf(r)))
      .map((r) => structuredClone(r));
  }

  cancelRun(runId: string): void {
    for (const { request } of [...this.#pending.values()]) {
      if (request.runId === runId) this.#finish(request.id, defaultOutcome(request, 'cancelled', 'deny', 0));
    }
    for (const [id, restored] of [...this.#restored]) if (restored.request.runId === runId) this.#restored.delete(id);
  }

  /** Shutdown: settles everything still pending as cancelled and waits for the audit writes. */
  async close(): Promise<void> {
    this.#relay?.close();
    const entries = [...this.#pending.values()];
    for (const { request } of entries) this.#finish(request.id, defaultOutcome(request, 'cancelled', 'deny', 0));
    // #finish chained each outcome write onto entry.audit.
    await Promise.allSettled(entries.map((e) => e.audit));
  }

  /** A timeout's default: with replicas, only if no human's answer on another replica claimed it first. */
  #settleOnce(id: string, outcome: ApprovalOutcome): void {
    if (!this.#relay) return this.#finish(id, outcome);
    this.#relay.settleOnce(id, () => this.#finish(id, outcome));
  }

  #finish(id: string, outcome: ApprovalOutcome, options: { stored?: boolean } = {}): void {
    const entry = this.#pending.get(id);
    if (!entry) return;
    this.#pending.delete(id);
    clearTimeout(entry.timer);
    entry.detachSignal();
    this.#remember(id, outcome, ownerOf(entry.request));
    entry.audit = entry.audit.then(async () => {
      await this.#record({
        ...toRecord(entry.request),
        decision: outcome.decision,
        resolvedBy: outcome.resolvedBy,
        actor: outcome.actor,
        resolvedAt: outcome.at,
      });
      // The run acts on a decision only once it is committed (a restart then never asks again).
      if (!options.stored) await this.#durable?.decide(id, outcome);
    });
    entry.settle(outcome);
    this.#relay?.settled(id, ownerOf(entry.request), outcome);
  }

  #remember(id: string, outcome: ApprovalOutcome, callerId: string): void {
    this.#settled.set(id, { outcome, callerId });
    while (this.#settled.size > this.#options.rememberSettled) {
      const oldest = this.#settled.keys().next().value;
      if (oldest === undefined) break;
      this.#settled.delete(oldest);
    }
  }

  /** Audit failures are logged, never thrown: a broken store must not wedge a waiting run. */
  async #record(record: ApprovalRecord): Promise<void> {
    if (!this.#options.recordApproval) return;
    try {
      await this.#options.recordApproval(record);
    } catch (err) {
      this.#options.logger.error('approval audit write failed', { id: record.id, error: String(err) });
    }
  }
}

const alreadyResolved = (id: string): ResolveAnswer => ({
  ok: false,
  code: 'already_resolved',
  message: `approval ${id} was already resolved`,
});

/** Who owns a request: its run's caller; one issued without a caller belongs to the one local caller (like a run). */
const ownerOf = (request: ApprovalRequest): string => request.callerId ?? LOCAL_CALLER.id;

function toRecord(request: ApprovalRequest): ApprovalRecord {
  const asked =
    request.kind === 'tool'
      ? { stepId: request.stepId, toolCalls: request.toolCalls, expiresAt: request.expiresAt }
      : {
          stepId: request.stepId,
          source: request.source,
          message: request.message,
          requestedSchema: request.requestedSchema,
          expiresAt: request.expiresAt,
        };
  return { id: request.id, runId: request.runId, kind: request.kind, request: asked, requestedAt: request.createdAt };
}

/**
 * The decision applied when no human answered. Tool calls get the configured default for a
 * timeout and always deny for a cancellation. Elicitations always end as "cancel": accepting
 * needs content only a human can give, and MCP reserves "decline" for an explicit refusal.
 */
function defaultOutcome(
  request: ApprovalRequest,
  resolvedBy: 'timeout' | 'cancelled',
  toolDefault: 'deny' | 'accept',
  timeoutMs: number,
): ApprovalOutcome {
  const at = new Date().toISOString();
  if (request.kind === 'elicitation') {
    return {
      requestId: request.id,
      decision: { kind: 'elicitation', action: 'cancel' },
      resolvedBy,
      actor: 'system',
      at,
    };
  }
  const type = resolvedBy === 'timeout' ? toolDefault : 'deny';
  const feedback =
    resolvedBy === 'timeout'
      ? `No human decision within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)}s`}; the default (${type}) was applied.`
      : 'The run was cancelled before a human decided; the tool call was not made.';
  const decisions = Object.fromEntries(request.toolCalls.map((c) => [c.toolCallId, { type }]));
  return { requestId: request.id, decision: { kind: 'tool', decisions, feedback }, resolvedBy, actor: 'system', at };
}
