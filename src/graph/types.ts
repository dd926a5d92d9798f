/** The engine's public surface as adapters see it. Implemented by Engine in engine.ts. */
import type { DirectCall, DirectCallRequest } from './direct-call.ts';
import type { GraphEvent, RunEnding } from './events.ts';
import type { Caller, RunRequest } from './run-request.ts';

export interface RunResult extends RunEnding {
  runId: string;
  threadId: string;
}

export interface RunHandle {
  readonly id: string;
  readonly threadId: string;
  /** The caller that started the run: it owns the run and everything the run produces. */
  readonly callerId: string;
  /** Settles when the run ends; never rejects (failures are a RunResult with status "failed"). */
  readonly result: Promise<RunResult>;
  /**
   * A fresh iterator over the run's events from seq > afterSeq (default 0: from the start, replaying the
   * retained history), ending after run.finished. Each call is an independent consumer; breaking out of
   * the loop detaches it.
   */
  events(afterSeq?: number): AsyncIterable<GraphEvent>;
}

export interface RunEngine {
  start(request: RunRequest): RunHandle;
  /** Admits a model call made outside a run (the passthrough) against the caller's rate limit and budgets. */
  admitDirectCall(request: DirectCallRequest): DirectCall;
  /** Aborts a running run (its in-flight model/tool calls and pending approvals). False if unknown or ended. */
  cancel(runId: string, reason?: string): boolean;
  /**
   * A running or recently finished run still retained in memory. With a caller, only a run that
   * caller may see (its own; any for an admin): another caller's run is undefined, like an unknown one.
   */
  get(runId: string, caller?: Caller): RunHandle | undefined;
}
