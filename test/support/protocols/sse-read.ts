/** Reads an SSE response with eventsource-parser (the parser the MCP SDK uses), for the SSE tests. */
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';
import type { GraphEvent } from '../../../src/graph/run/events.ts';

export interface SseMessage extends EventSourceMessage {
  json: GraphEvent;
}

export async function* readSse(res: Response, onComment?: (comment: string) => void): AsyncGenerator<SseMessage> {
  const reader = res
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream({ onComment }))
    .getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield { ...value, json: JSON.parse(value.data) as GraphEvent };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

export async function readAll(res: Response): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const m of readSse(res)) out.push(m);
  return out;
}

export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
