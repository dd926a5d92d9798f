/**
 * Writes GraphEvents as Server-Sent Events with Hono's streamSSE: `event: <type>`, `id: <seq>`,
 * `data: <the event as JSON>`, and a comment line as heartbeat whenever the stream has been idle
 * for heartbeatMs (proxies drop silent connections; EventSource ignores comments).
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { GraphEvent } from '../../graph/contract.ts';
import { startHeartbeat } from '../shared/heartbeat.ts';

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
    const heartbeat = startHeartbeat((text) => stream.write(text), options.heartbeatMs);
    try {
      for (;;) {
        const next = await events.next();
        if (next.done || stream.aborted) break;
        const event = next.value;
        heartbeat.wrote();
        await stream.writeSSE({ event: event.type, id: String(event.seq), data: JSON.stringify(event) });
        if (event.type === 'run.finished') finished = true;
      }
    } finally {
      heartbeat.stop();
      await events.return?.();
    }
  });
}
