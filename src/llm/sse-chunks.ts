/**
 * The chunks of a streamed chat completion, read from the raw HTTP response with eventsource-parser
 * instead of the openai SDK's own SSE decoder. This is the per-token path of every streamed answer: the
 * SDK's decoder (byte-level line splitting, a buffer concatenated per chunk, async generators) costs
 * ~12 µs of CPU per chunk against ~3 µs here, ~2.6 ms per 300-chunk answer (`npx tsx bench/sse-decode.ts`),
 * and was a fifth of Parley's main thread with 100 runs in flight (docs/performance.md, 2026-11-27).
 *
 * Same behaviour as the SDK's `Stream`: `[DONE]` ends the chunks (the body is still read to its end, so
 * the connection goes back to the pool), a data line carrying `error` throws its APIError, an abort ends
 * the chunks quietly (the caller tells why), anything else thrown is the transport's error.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { APIError } from 'openai';

export function sseChunks<T>(response: Response): SseChunks<T> {
  return new SseChunks<T>(response);
}

export class SseChunks<T> implements AsyncIterator<T> {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #headers: Headers;
  readonly #decoder = new TextDecoder();
  readonly #parser = createParser({ onEvent: (event) => this.#event(event) });
  /** Parsed chunks not yet handed out (a network read often carries several). */
  readonly #ready: T[] = [];
  #error: unknown;
  /** `[DONE]` came: later events are ignored (as the SDK does). */
  #doneSeen = false;
  #ended = false;

  constructor(response: Response) {
    this.#reader = response.body?.getReader();
    this.#headers = response.headers;
  }

  async next(): Promise<IteratorResult<T>> {
    for (;;) {
      if (this.#ready.length > 0) return { value: this.#ready.shift()!, done: false };
      if (this.#error !== undefined) {
        const error = this.#error;
        this.#error = undefined;
        await this.return();
        throw error;
      }
      if (this.#ended || !this.#reader) return { value: undefined, done: true };
      let read: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
      try {
        read = await this.#reader.read();
      } catch (err) {
        if (isAbortError(err)) {
          this.#ended = true;
          continue;
        }
        throw err;
      }
      if (read.done) {
        this.#ended = true;
        this.#parser.feed(this.#decoder.decode());
        this.#parser.feed('\n\n'); // an event the body ended without its blank line
      } else this.#parser.feed(this.#decoder.decode(read.value, { stream: true }));
    }
  }

  /**
   * The next chunk already parsed from the same network read, if `accept` takes it; no I/O, no promise.
   * A caller merges a burst of deltas into one (chat-stream.ts) instead of a promise and an event each.
   */
  nextReady(accept: (chunk: T) => boolean): T | undefined {
    const head = this.#ready[0];
    if (head === undefined || !accept(head)) return undefined;
    return this.#ready.shift();
  }

  /** The consumer left early: cancel the body (closing the request). */
  async return(): Promise<IteratorResult<T>> {
    if (!this.#ended) {
      this.#ended = true;
      await this.#reader?.cancel().catch(() => undefined);
    }
    return { value: undefined, done: true };
  }

  #event(event: EventSourceMessage): void {
    if (this.#doneSeen || this.#error !== undefined) return;
    if (event.data.startsWith('[DONE]')) {
      this.#doneSeen = true;
      return;
    }
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch (err) {
      this.#error = err;
      return;
    }
    if (data && typeof data === 'object' && 'error' in data && data.error) {
      this.#error = new APIError(undefined, data.error as object, undefined, this.#headers);
      return;
    }
    this.#ready.push(data as T);
  }
}

/** The SDK's test: a spec-compliant fetch rejects an aborted body read with an `AbortError`. */
function isAbortError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'name' in err && err.name === 'AbortError';
}
