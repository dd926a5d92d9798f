/**
 * Server-sent events read with fetch (EventSource cannot send the Authorization header), parsed by
 * eventsource-parser. `follow` reconnects with the last event id until the stream ends on its own
 * (the run finished) or the signal aborts: a dropped connection or a restarted server loses nothing.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { authHeaders, errorOf } from './client.ts';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** One connection: yields messages until the server ends the stream. */
export async function* readSse(path: string, signal: AbortSignal, lastEventId?: string): AsyncGenerator<SseMessage> {
  const res = await fetch(path, {
    headers: {
      accept: 'text/event-stream',
      ...authHeaders(),
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    signal,
  });
  if (!res.ok || !res.body) throw await errorOf(res);
  const messages = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = messages.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
    await res.body.cancel().catch(() => {});
  }
}

const RETRY_MS = [500, 1000, 2000, 5000];

/**
 * Follows a stream to its end across reconnects. `isLast` tells the final message (run.finished);
 * a refusal (4xx) is not retried: the caller shows it.
 */
export async function followSse(
  path: string,
  signal: AbortSignal,
  onMessage: (message: SseMessage) => void,
  isLast: (message: SseMessage) => boolean,
): Promise<void> {
  let lastEventId: string | undefined;
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      for await (const message of readSse(path, signal, lastEventId)) {
        attempt = 0;
        if (message.id) lastEventId = message.id;
        onMessage(message);
        if (isLast(message)) return;
      }
    } catch (err) {
      if (signal.aborted) return;
      if (typeof err === 'object' && err && 'status' in err && (err as { status: number }).status < 500) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
  }
}
