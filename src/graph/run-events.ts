/**
 * RunEventLog: one run's ordered event history plus any number of independent consumers.
 *
 * The engine appends synchronously and never waits for a consumer. Each consumer is a cursor into
 * the retained history, so a consumer costs no copies; a consumer that falls more than `buffer`
 * events behind the live end (counting only events emitted after it subscribed) is detached with
 * SlowConsumerError. Breaking out of a `for await` (iterator return()) detaches it and frees it.
 */
import type { GraphEvent, GraphEventBody } from './events.ts';

export class SlowConsumerError extends Error {
  override name = 'SlowConsumerError';
}

interface Consumer {
  cursor: number; // index into history of the next event to deliver
  floor: number; // history length when it subscribed: lag is measured from here
  wake?: () => void;
  error?: Error;
}

export interface RunEventLogOptions {
  /** Events one consumer may lag behind before it is detached. */
  buffer: number;
  /** Clock in ms since the epoch (default Date.now). */
  now?: () => number;
}

export class RunEventLog {
  readonly runId: string;
  private readonly history: GraphEvent[] = [];
  private readonly consumers = new Set<Consumer>();
  private readonly buffer: number;
  private readonly now: () => number;
  private closed = false;
  // Many events share a millisecond (a streamed answer): format each distinct time once.
  private atMs = NaN;
  private atIso = '';

  constructor(runId: string, options: RunEventLogOptions) {
    this.runId = runId;
    this.buffer = options.buffer;
    this.now = options.now ?? Date.now;
  }

  get finished(): boolean {
    return this.closed;
  }

  get lastSeq(): number {
    return this.history.length;
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
    for (const c of this.consumers) {
      if (this.history.length - Math.max(c.cursor, c.floor) > this.buffer) {
        c.error = new SlowConsumerError(
          `event consumer of run ${this.runId} fell more than ${this.buffer} events behind and was detached`,
        );
        this.consumers.delete(c);
      }
      const wake = c.wake;
      c.wake = undefined;
      wake?.();
    }
    return event;
  }

  /** A fresh consumer over events with seq > afterSeq, ending after run.finished. */
  events(afterSeq = 0): AsyncIterable<GraphEvent> {
    return { [Symbol.asyncIterator]: () => this.iterate(afterSeq) };
  }

  private iterate(afterSeq: number): AsyncIterator<GraphEvent> {
    // An afterSeq past the end (a client that claims more than exists) means "from now on".
    const consumer: Consumer = { cursor: Math.min(Math.max(0, afterSeq), this.history.length), floor: this.history.length };
    let attached = !this.closed || consumer.cursor < this.history.length;
    if (!this.closed) this.consumers.add(consumer);
    const detach = () => {
      attached = false;
      this.consumers.delete(consumer);
      const wake = consumer.wake;
      consumer.wake = undefined;
      wake?.();
    };
    const next = async (): Promise<IteratorResult<GraphEvent>> => {
      for (;;) {
        if (consumer.error) {
          const error = consumer.error;
          consumer.error = undefined;
          attached = false;
          throw error;
        }
        if (consumer.cursor < this.history.length && attached) {
          return { value: this.history[consumer.cursor++]!, done: false };
        }
        if (!attached || this.closed) {
          detach();
          return { value: undefined, done: true };
        }
        await new Promise<void>((resolve) => (consumer.wake = resolve));
      }
    };
    return {
      next,
      return: async () => {
        detach();
        return { value: undefined, done: true };
      },
    };
  }
}
