/**
 * AG-UI endpoint: POST /ag-ui takes a RunAgentInput and streams AG-UI events (docs/protocols/agui.md).
 *   - a new run: the latest user message is the query; the AG-UI runId becomes the engine run id
 *   - approvals: CUSTOM `approval_required` (sideband; resolve with POST /api/approve), or with
 *     forwardedProps.parley.interrupts the standard interrupt outcome, resumed by the next run on the
 *     thread carrying `resume` entries, which continues streaming the same (suspended) engine run
 *   - a client disconnect cancels the run unless forwardedProps.parley.continueOnDisconnect
 *   - GET /ag-ui/capabilities: AgentCapabilities (what the endpoint supports)
 * Bad input answers 400 `{ error: { code, message, field } }` and starts nothing.
 */
import { Hono, type Context } from 'hono';
import { AGUI_MEDIA_TYPE, EventEncoder } from '@ag-ui/encoder';
import type { RunAgentInput } from '@ag-ui/core';
import type { Config } from '../../config.ts';
import { canSee, newId, type GraphEvent, type RunEngine, type RunHandle } from '../../graph/contract.ts';
import { callerOf } from '../../http/auth.ts';
import { readJson } from '../../http/body.ts';
import { errorHandler, jsonError } from '../../http/errors.ts';
import type { Logger } from '../../log.ts';
import { parseRunAgentInput, toRunRequest, type ParleyProps } from './input.ts';
import { planResume, runNamedBy, SuspendedThreads } from './interrupts.ts';
import { streamAgui, streamAguiError } from './stream.ts';
import { AguiTranslator } from './translate.ts';
import { aguiCapabilities } from './capabilities.ts';
import { admit, retryAfterSeconds } from '../shared/admission.ts';

export interface AguiDeps {
  engine: RunEngine;
  config: Config;
  logger: Logger;
}

export function aguiRoutes(deps: AguiDeps): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.logger));
  const suspended = new SuspendedThreads();
  const heartbeatMs = deps.config.protocols.sseHeartbeatMs;

  const open = (
    c: Context,
    input: RunAgentInput,
    parley: ParleyProps,
    handle: RunHandle,
    events: AsyncIterator<GraphEvent>,
    translator: AguiTranslator,
  ) => {
    c.header('X-Parley-Run-Id', handle.id);
    return streamAgui(c, encoderFor(c.req.header('accept')), translator, events, {
      heartbeatMs,
      logger: deps.logger,
      onDisconnect: parley.continueOnDisconnect
        ? undefined
        : () => deps.engine.cancel(handle.id, 'the AG-UI client disconnected'),
      onInterrupt: (lastSeq) => {
        suspended.suspend(input.threadId, handle.id, lastSeq);
        releaseAfter(suspended, input.threadId, handle, deps.config.engine.runRetentionMs);
      },
    });
  };

  // AG-UI capability discovery (no transport is standard yet: see capabilities.ts).
  app.get('/ag-ui/capabilities', (c) => c.json(aguiCapabilities(deps.config)));

  app.post('/ag-ui', async (c) => {
    const parsed = parseRunAgentInput(await readJson(c));
    if (!parsed.ok) return invalid(c, parsed);
    const { input, parley } = parsed;
    if (input.resume?.length) return resume(c, input, parley);

    const caller = callerOf(c);
    const built = toRunRequest(input, parley, caller);
    if (!built.ok) return invalid(c, built);
    const existing = deps.engine.get(input.runId);
    if (existing && canSee(caller, existing.callerId))
      return invalid(
        c,
        { field: 'runId', message: `runId: run ${input.runId} already exists; send a fresh runId` },
        409,
      );
    // Another caller's run has this id: this run gets its own engine id (the AG-UI runId stays the
    // client's, RUN_STARTED's metadata names the engine's), so nothing tells the caller the other exists.
    const handle = deps.engine.start(existing ? { ...built.request, runId: newId() } : built.request);
    const admission = await admit(handle);
    if (!admission.admitted) {
      return jsonError(c, 429, admission.error, 'rate_limited', {
        'Retry-After': retryAfterSeconds(admission.retryAfterMs),
      });
    }
    const translator = new AguiTranslator({
      threadId: input.threadId,
      runId: input.runId,
      engineRunId: handle.id,
      interrupts: parley.interrupts ?? false,
      pendingApprovals: () => handle.pendingApprovals(),
    });
    return open(c, input, parley, handle, admission.events, translator);
  });

  /**
   * A run carrying `resume`: answer the interrupts of this thread's suspended run (and only its:
   * same thread, same caller), then continue that run's stream.
   */
  const resume = async (c: Context, input: RunAgentInput, parley: ParleyProps) => {
    // Only the caller's own runs and approvals can be resumed: another caller's are not found.
    const caller = callerOf(c);
    const approvals = { get: (requestId: string) => deps.engine.approval(requestId, caller) };
    const entries = input.resume ?? [];
    const entry = suspended.get(input.threadId);
    const runId = entry?.runId ?? runNamedBy(entries, approvals);
    // Another caller's run answers exactly like no run at all.
    const handle = runId ? deps.engine.get(runId, caller) : undefined;
    if (!handle || handle.threadId !== input.threadId) {
      return invalid(
        c,
        {
          field: 'resume',
          message: `resume: thread ${input.threadId} has no interrupted run to continue (it may have expired)`,
        },
        409,
      );
    }
    const plan = planResume(entries, approvals, handle.id);
    if (!plan.ok && plan.foreign) {
      return streamAguiError(c, encoderFor(c.req.header('accept')), input, {
        code: 'invalid_resume',
        message: plan.message,
      });
    }
    if (!plan.ok) return invalid(c, plan);
    const afterSeq = entry?.afterSeq ?? 0;
    suspended.release(input.threadId, handle.id);
    for (const r of plan.resolutions) {
      const answer = await handle.resolve(r.requestId, r.decision, caller.id);
      if (!answer.ok && answer.code === 'invalid')
        return invalid(c, { field: 'resume', message: `resume: ${answer.message}` });
    }

    const translator = new AguiTranslator({
      threadId: input.threadId,
      runId: input.runId,
      engineRunId: handle.id,
      interrupts: parley.interrupts ?? true,
      pendingApprovals: () => handle.pendingApprovals(),
    });
    // Rebuild what the client was already shown, then continue from the same consumer.
    const events = handle.events()[Symbol.asyncIterator]();
    const shown = entry?.runId === handle.id ? shownUpTo(afterSeq) : shownAfterRestart(plan.resolutions, handle);
    for (;;) {
      if (shown.done(translator.lastSeq)) break;
      const next = await events.next();
      if (next.done) break;
      translator.replay(next.value);
      shown.saw(next.value);
    }
    return open(c, input, parley, handle, events, translator);
  };

  return app;
}

/** Where the earlier stream of a run stopped, as a replay learns it. */
interface ShownEnd {
  done(lastSeq: number): boolean;
  saw(event: GraphEvent): void;
}

/** This process ended the earlier stream at the interrupt, at `afterSeq`. */
const shownUpTo = (afterSeq: number): ShownEnd => ({ done: (lastSeq) => lastSeq >= afterSeq, saw: () => undefined });

/**
 * After a restart the suspension is not in memory: the earlier stream ended at the interrupt, i.e. at
 * the approval.requested of the requests being answered (the last of them), so the replay reads up to
 * there, never past what the log holds now (it must not wait on the live run).
 */
function shownAfterRestart(resolutions: readonly { requestId: string }[], handle: RunHandle): ShownEnd {
  const unseen = new Set(resolutions.map((r) => r.requestId));
  // A run followed from another replica has no live log here: read until the requests are seen.
  const end = handle.lastSeq?.() ?? Number.POSITIVE_INFINITY;
  return {
    done: (lastSeq) => unseen.size === 0 || lastSeq >= end,
    saw: (event) => {
      if (event.type === 'approval.requested') unseen.delete(event.request.id);
    },
  };
}

/**
 * Forgets the thread's suspension once the run's replay window is over. The timer holds the two ids
 * only: a closure inside the route would keep the request's RunAgentInput and the RunHandle (the
 * run's whole event log) alive for the window, past the engine's own retention cap.
 */
function releaseAfter(suspended: SuspendedThreads, threadId: string, handle: RunHandle, retentionMs: number): void {
  const runId = handle.id;
  void handle.result.then(() => setTimeout(() => suspended.release(threadId, runId), retentionMs).unref());
}

/**
 * Protobuf only when the client names its media type: the encoder alone would also pick it for
 * `*\/*` (curl, most HTTP libraries), and SSE is the default the AG-UI clients and docs assume.
 */
function encoderFor(accept: string | undefined): EventEncoder {
  return new EventEncoder(accept?.toLowerCase().includes(AGUI_MEDIA_TYPE) ? { accept } : {});
}

function invalid(c: Context, issue: { field: string; message: string }, status: 400 | 409 = 400): Response {
  return c.json(
    { error: { code: status === 400 ? 'invalid_request' : 'conflict', message: issue.message, field: issue.field } },
    status,
  );
}
