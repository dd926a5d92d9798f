/**
 * RunEventLog: one run's ordered event history plus any number of independent consumers.
 *
 * The engine appends synchronously and never waits for a consumer. Each consumer is a cursor into
 * the retained history, so a consumer costs no copies; a consumer that falls more than `buffer`
 * events behind the live end (counting only events emitted after it subscribed) is detached with
 * SlowConsumerError. Breaking out of a `for await` (iterator return()) detaches it and frees it.
 *
 * With a run store (docs/durability.md) every event is handed to `persist`; when it returns a promise
 * (an event a client must never see unless it is committed: an approval request, a finished step, the
 * end), consumers are held at that event until the promise settles, so nothing reaches a client that a
 * kill -9 could take back. A log restored after a restart starts from the stored history.
 */
import type { GraphEvent, GraphEventBody } from './events.ts';

export class SlowConsumerError extends Error {
  override name = 'SlowConsumerError';
}

interface Consumer {
  cursor: number; // index into history of the next event to deliver
  floor: number; // history length when it subscribed: lag is measured from here
  attached: boolean;
  error?: Error;
  /** The pending next() while the consumer waits for an event. */
  resolve?: (result: IteratorResult<GraphEvent>) => void;
  reject?: (error: Error) => void;
}

/**
 * Hands an event to the run store; `flush`, when there is one, sends what it still holds back (streamed text
 * waiting for more, durable/persist-events.ts) at once: the log calls it when it ends without run.finished.
 */
export type Persist = ((event: GraphEvent) => Promise<unknown> | undefined) & { flush?: () => void };

export interface RunEventLogOptions {
  /** Events one consumer may lag behind before it is detached. */
  buffer: number;
  /** Clock in ms since the epoch (default Date.now). */
  now?: () => number;
  /**
   * Hands each event to the run store. A returned promise holds consumers at the event until it
   * settles (its commit); undefined lets consumers see it at once. Events committed together may
   * share one promise (the same object): consumers are then held once, at the first of them.
   */
  persist?: Persist;
  /** The events logged before a restart (seq 1..n, in order): the log continues after them. */
  restored?: GraphEvent[];
}

const noop = () => undefined;

export class RunEventLog {
  readonly runId: string;
  private readonly history: GraphEvent[] = [];
  private readonly consumers = new Set<Consumer>();
  private readonly buffer: number;
  private readonly now: () => number;
  private closed = false;
  private readonly persist?: RunEventLogOptions['persist'];
  /** Seqs of events waiting for their commit, ascending: consumers see only the events before the first. */
  private readonly held: number[] = [];
  /** The promise the last persisted event was handed: one hold per commit, not per event. */
  private lastCommit?: Promise<unknown>;
  // Many events share a millisecond (a streamed answer): format each distinct time once.
  private atMs = NaN;
  private atIso = '';

  constructor(runId: string, options: RunEventLogOptions) {
    this.runId = runId;
    this.buffer = options.buffer;
    this.now = options.now ?? Date.now;
    this.persist = options.persist;
    if (options.restored?.length) {
      this.history.push(...options.restored);
      if (options.restored.at(-1)!.type === 'run.finished') this.closed = true;
    }
  }

  /** How many events consumers may see: all of them, or those before the first one still being committed. */
  private get visible(): number {
    return this.held.length ? this.held[0]! - 1 : this.history.length;
  }

  get finished(): boolean {
    return this.closed;
  }

  get lastSeq(): number {
    return this.history.length;
  }

  /** Settles once every event emitted so far is committed (at once when nothing is persisted). */
  committed(): Promise<void> {
    const last = this.lastCommit;
    return last ? last.then(noop, noop) : Promise.resolve();
  }

  /** Number of attached consumers (for tests and diagnostics). */
  get consumerCount(): number {
    return this.consumers.size;
  }

  /** The retained events with seq > afterSeq. */
  snapshot(afterSeq = 0): GraphEvent[] {
    return this.history.slice(Math.max(0, afterSeq));
  }

  /**
   * Appends an event and wakes consumers. After run.finished the log is closed and further
   * emits are ignored (returns undefined), which is what makes run.finished exactly-once.
   * The log takes `body` over (it becomes the event: no copy per event); pass a fresh object.
   */
  emit(body: GraphEventBody): GraphEvent | undefined {
    if (this.closed) return undefined;
    const ms = this.now();
    if (ms !== this.atMs) {
      this.atMs = ms;
      this.atIso = new Date(ms).toISOString();
    }
    const seq = this.history.length + 1;
    // answer.delta is most of a run's events: built whole, its fields stay in-object (smaller).
    const event = (
      body.type === 'answer.delta'
        ? { type: body.type, text: body.text, runId: this.runId, seq, at: this.atIso }
        : Object.assign(body, { runId: this.runId, seq, at: this.atIso })
    ) as GraphEvent;
    this.history.push(event);
    if (event.type === 'run.finished') this.closed = true;
    const committed = this.persist?.(event);
    // Events committed together share a promise: the hold at the first of them covers the rest.
    if (committed && committed !== this.lastCommit) {
      this.lastCommit = committed;
      this.held.push(seq);
      const release = () => this.#release(seq);
      committed.then(release, release);
    }
    for (const c of this.consumers) {
      if (this.history.length - Math.max(c.cursor, c.floor) > this.buffer) {
        c.error = new SlowConsumerError(
          `event consumer of run ${this.runId} fell more than ${this.buffer} events behind and was detached`,
        );
        this.consumers.delete(c);
      }
      if (c.resolve) this.#wake(c);
    }
    return event;
  }

  /**
   * Ends every consumer once it has what was emitted, without a run.finished: the process is stopping
   * and the run goes on after the next start (a run suspended while it waits on a human), so a stream
   * following it ends now and its client reconnects with Last-Event-ID. Later emits are ignored.
   */
  end(): void {
    // What the store still holds back goes now: the process is stopping, and a consumer waits for its commit.
    this.persist?.flush?.();
    this.closed = true;
    for (const c of this.consumers) if (c.resolve) this.#wake(c);
  }

  /** A fresh consumer over events with seq > afterSeq, ending after run.finished. */
  events(afterSeq = 0): AsyncIterable<GraphEvent> {
    return { [Symbol.asyncIterator]: () => this.iterate(afterSeq) };
  }

  /** An event's commit settled: consumers may go on past it. */
  #release(seq: number): void {
    const at = this.held.indexOf(seq);
    if (at !== -1) this.held.splice(at, 1);
    for (const c of this.consumers) if (c.resolve) this.#wake(c);
  }

  private iterate(afterSeq: number): AsyncIterator<GraphEvent> {
    // An afterSeq past the end (a client that claims more than exists) means "from now on".
    const cursor = Math.min(Math.max(0, afterSeq), this.history.length);
    const consumer: Consumer = {
      cursor,
      floor: this.history.length,
      attached: !this.closed || cursor < this.history.length,
    };
    if (!this.closed || this.held.length) this.consumers.add(consumer);
    return new EventCursor(this, consumer);
  }

  /** @internal EventCursor.next(). */
  nextFor(consumer: Consumer): Promise<IteratorResult<GraphEvent>> {
    const result = this.#poll(consumer);
    if (result === undefined) {
      return new Promise<IteratorResult<GraphEvent>>((resolve, reject) => {
        consumer.resolve = resolve;
        consumer.reject = reject;
      });
    }
    return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
  }

  /** @internal EventCursor.return(). */
  returnFor(consumer: Consumer): Promise<IteratorResult<GraphEvent>> {
    this.#detach(consumer);
    return Promise.resolve({ value: undefined, done: true });
  }

  /** The consumer's next result now, or undefined while it must wait for an event. */
  #poll(consumer: Consumer): IteratorResult<GraphEvent> | Error | undefined {
    if (consumer.error) {
      const error = consumer.error;
      consumer.error = undefined;
      consumer.attached = false;
      return error;
    }
    if (consumer.cursor < this.visible && consumer.attached) {
      return { value: this.history[consumer.cursor++]!, done: false };
    }
    if (!consumer.attached || (this.closed && consumer.cursor >= this.history.length)) {
      this.#detach(consumer);
      return { value: undefined, done: true };
    }
    return undefined;
  }

  /** Settles a waiting consumer's pending next() with what is there now (an event, the end, an error). */
  #wake(consumer: Consumer): void {
    const { resolve, reject } = consumer;
    if (!resolve || !reject) return;
    consumer.resolve = undefined;
    consumer.reject = undefined;
    const result = this.#poll(consumer);
    if (result === undefined) {
      consumer.resolve = resolve;
      consumer.reject = reject;
    } else if (result instanceof Error) reject(result);
    else resolve(result);
  }

  #detach(consumer: Consumer): void {
    consumer.attached = false;
    this.consumers.delete(consumer);
    this.#wake(consumer);
  }
}

/**
 * A consumer's iterator: a plain object with prototype methods, not an async function or closures.
 * A consumer waiting for the next event (hundreds of times per streamed answer) holds one promise,
 * and emit() settles it directly.
 */
class EventCursor implements AsyncIterator<GraphEvent> {
  constructor(
    private readonly log: RunEventLog,
    private readonly consumer: Consumer,
  ) {}

  next(): Promise<IteratorResult<GraphEvent>> {
    return this.log.nextFor(this.consumer);
  }

  return(): Promise<IteratorResult<GraphEvent>> {
    return this.log.returnFor(this.consumer);
  }
}
