/**
 * Writes GraphEvents as Server-Sent Events with Hono's streamSSE: `event: <type>`, `id: <seq>`,
 * `data: <the event as JSON>`, and a comment line as heartbeat whenever the stream has been idle
 * for heartbeatMs (proxies drop silent connections; EventSource ignores comments).
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { GraphEvent } from '../../graph/contract.ts';

export interface SseOptions {
  heartbeatMs: number;
  /** Called once when the client goes away before the run's last event was written. */
  onDisconnect?: () => void;
}

export function streamGraphEvents(c: Context, events: AsyncIterator<GraphEvent>, options: SseOptions): Response {
  return streamSSE(c, async (stream) => {
    let finished = false;
    stream.onAbort(() => {
      // Settles a pending next() (the engine consumer detaches), so the loop below ends now.
      void events.return?.();
      if (!finished) options.onDisconnect?.();
    });
    let lastWrite = Date.now();
    const heartbeat = setInterval(
      () => {
        if (Date.now() - lastWrite < options.heartbeatMs) return;
        lastWrite = Date.now();
        void stream.write(': heartbeat\n\n');
      },
      Math.max(10, Math.floor(options.heartbeatMs / 2)),
    );
    try {
      for (;;) {
        const next = await events.next();
        if (next.done || stream.aborted) break;
        const event = next.value;
        lastWrite = Date.now();
        await stream.writeSSE({ event: event.type, id: String(event.seq), data: JSON.stringify(event) });
        if (event.type === 'run.finished') finished = true;
      }
    } finally {
      clearInterval(heartbeat);
      await events.return?.();
    }
  });
}
