/**
 * Writes one AG-UI stream: the translator's events encoded by @ag-ui/encoder in the format the
 * client's Accept asked for (SSE by default, protobuf for application/vnd.ag-ui.event+proto), with
 * a comment heartbeat while an SSE stream is idle. Ends after the terminal event or an interrupt;
 * a client that goes away before that triggers onDisconnect.
 */
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { EventEncoder } from '@ag-ui/encoder';
import type { GraphEvent } from '../../graph/contract.ts';
import type { Logger } from '../../log.ts';
import type { AguiTranslator } from './translate.ts';
import { startHeartbeat } from '../shared/heartbeat.ts';

export interface AguiStreamHooks {
  heartbeatMs: number;
  logger: Logger;
  onDisconnect?: () => void;
  /** Called before the interrupt is written, with the last engine seq this stream covered. */
  onInterrupt?: (lastSeq: number) => void;
}

export function streamAgui(
  c: Context,
  encoder: EventEncoder,
  translator: AguiTranslator,
  events: AsyncIterator<GraphEvent>,
  hooks: AguiStreamHooks,
): Response {
  const sse = encoder.getContentType() === 'text/event-stream';
  c.header('Content-Type', encoder.getContentType());
  c.header('Cache-Control', 'no-cache');
  return stream(c, async (s) => {
    let ended = false;
    s.onAbort(() => {
      void events.return?.();
      if (!ended) hooks.onDisconnect?.();
    });
    const heartbeat = sse ? startHeartbeat((text) => s.write(text), hooks.heartbeatMs) : undefined;
    const write = async (batch: BaseEvent[]) => {
      heartbeat?.wrote();
      for (const e of batch) await s.write(encoder.encodeBinary(e));
    };
    try {
      await write(translator.begin());
      const waiting = translator.stillWaiting();
      if (waiting) {
        ended = true;
        hooks.onInterrupt?.(translator.lastSeq);
        await write(waiting.events);
        return;
      }
      for (;;) {
        const next = await events.next();
        if (next.done || s.aborted) break;
        const t = translator.translate(next.value);
        if (t.end) ended = true;
        if (t.end === 'interrupted') hooks.onInterrupt?.(translator.lastSeq);
        await write(t.events);
        if (t.end) break;
      }
      if (!ended && !s.aborted) {
        ended = true;
        await write(translator.abort('the run stopped streaming before it finished'));
      }
    } catch (err) {
      hooks.logger.warn('ag-ui: event stream failed', { error: err instanceof Error ? err.message : String(err) });
      if (!ended && !s.aborted) {
        ended = true;
        await write(translator.abort('the event stream failed; the run may still be going (GET /api/runs/:id/events)'));
      }
    } finally {
      heartbeat?.stop();
      await events.return?.();
    }
  });
}

/**
 * A request refused after it was understood as a run (e.g. a resume naming another run's
 * interrupt): AG-UI's own error shape, RUN_STARTED then RUN_ERROR, so the client's run ends at once.
 */
export function streamAguiError(
  c: Context,
  encoder: EventEncoder,
  ids: { threadId: string; runId: string },
  error: { code: string; message: string },
): Response {
  c.header('Content-Type', encoder.getContentType());
  c.header('Cache-Control', 'no-cache');
  const at = Date.now();
  const events: BaseEvent[] = [
    { type: EventType.RUN_STARTED, threadId: ids.threadId, runId: ids.runId, timestamp: at } as BaseEvent,
    { type: EventType.RUN_ERROR, code: error.code, message: error.message, timestamp: at } as BaseEvent,
  ];
  return stream(c, async (s) => {
    for (const e of events) await s.write(encoder.encodeBinary(e));
  });
}
