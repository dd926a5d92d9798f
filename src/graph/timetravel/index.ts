/**
 * Time travel (docs/time-travel.md): a run's checkpoints, a fork from one of them, a replay of a run's
 * request on another configuration, and two runs compared. Every entry is scoped to the caller like
 * every run route: another caller's run answers exactly like an unknown one.
 */
import type { KnowledgeStore } from '../../knowledge/store.ts';
import type { RunStore } from '../../store/runs/run-store.ts';
import type { RunEngine, RunHandle } from '../run/engine-port.ts';
import { untilRecorded } from '../run/until-recorded.ts';
import type { GraphEvent, GraphEventOf } from '../run/events.ts';
import { COUNCIL_SPECIALIST, MANAGER_SPECIALIST, type PlanStep } from '../planning/graph-plan.ts';
import type { Caller, RunRequest } from '../run/request.ts';
import { entryOf, type CheckpointEntry } from './checkpoint-list.ts';
import { checkpointState, checkpointsOf, publicView, type CarriedStep, type RunCheckpoint } from './checkpoints.ts';
import { ForkBodySchema, issueMessage, planFork } from './fork-request.ts';
import { eventsSoFar } from './read-events.ts';
import { differences, summarize, type Difference, type RunSummary } from './compare.ts';
import { ReplayBodySchema, replayRequest } from './replay-request.ts';

export interface TimeTravelDeps {
  engine: RunEngine;
  store: Pick<KnowledgeStore, 'listSpecialists'>;
  /** The stored request of a run (models, messages, budget) and a fork's carried steps; without it, what run.started says. */
  runStore?: Pick<RunStore, 'runs' | 'checkpoints'>;
}

export type Refusal = { ok: false; status: 400 | 404; message: string };
export type Started = { ok: true; handle: RunHandle; forkedFrom?: { runId: string; checkpoint: string } };
export type Comparison = { ok: true; a: RunSummary; b: RunSummary; differences: Difference[] };

export interface TimeTravel {
  /** The run's checkpoints, light: what each is and how far the run had got (checkpoint-list.ts). */
  checkpoints(
    runId: string,
    caller: Caller,
  ): Promise<{ ok: true; runId: string; checkpoints: CheckpointEntry[] } | Refusal>;
  /** One checkpoint in full: its plan, finished steps with their outputs, verification and usage. */
  checkpoint(
    runId: string,
    checkpointId: string,
    caller: Caller,
  ): Promise<{ ok: true; runId: string; checkpoint: RunCheckpoint } | Refusal>;
  /** Starts a fork; `body` is `{ checkpoint, edit? }` as a client sent it (checked here). */
  fork(runId: string, caller: Caller, body: unknown, protocol: string): Promise<Started | Refusal>;
  /** Starts a replay: the run's request again, on `{ model?, models?, specialists? }`. */
  replay(runId: string, caller: Caller, body: unknown, protocol: string): Promise<Started | Refusal>;
  /** Two of the caller's runs side by side, and what differs. */
  compare(a: string, b: string, caller: Caller): Promise<Comparison | Refusal>;
}

export const unknownRun = (runId: string): Refusal => ({
  ok: false,
  status: 404,
  message: `No run with id "${runId}".`,
});

export function timeTravel(deps: TimeTravelDeps): TimeTravel {
  /** The run's events and what a fork of it needs, or undefined when the caller may not see it. */
  async function readRun(runId: string, caller: Caller) {
    const handle = deps.engine.get(runId, caller);
    if (!handle) return undefined;
    const events = await eventsSoFar(handle);
    const started = events.find((e): e is GraphEventOf<'run.started'> => e.type === 'run.started');
    const stored = await deps.runStore?.runs.get(runId);
    const request: RunRequest = (stored?.request as RunRequest | undefined) ?? {
      query: started?.query ?? '',
      mode: started?.mode ?? 'auto',
      protocol: started?.protocol ?? 'unknown',
    };
    const carried = started?.forkedFrom ? await carriedSteps(runId, events) : [];
    return { handle, events, request, carried };
  }

  /** A fork's carried steps: in its stored checkpoint since its start (timetravel/seed.ts), never in its log. */
  async function carriedSteps(runId: string, events: GraphEvent[]): Promise<CarriedStep[]> {
    const checkpoint = await deps.runStore?.checkpoints.load(runId);
    const ran = new Set(events.filter((e) => e.type === 'step.finished').map((e) => (e as { stepId: string }).stepId));
    return (checkpoint?.steps ?? [])
      .filter((s) => !ran.has(s.stepId) && s.step)
      .map((s) => {
        const outcome = s.outcome as { specialist: string; status: 'succeeded'; output?: string };
        const step = s.step as PlanStep;
        return {
          step,
          finished: {
            stepId: s.stepId,
            specialist: outcome.specialist,
            status: outcome.status,
            ...(outcome.output !== undefined ? { output: outcome.output } : {}),
            objective: step.objective,
          },
        };
      });
  }

  async function knownSpecialists(): Promise<Set<string>> {
    const available = await deps.store.listSpecialists({ available: true });
    return new Set([...available.map((s) => s.id), COUNCIL_SPECIALIST, MANAGER_SPECIALIST]);
  }

  return {
    async checkpoints(runId, caller) {
      const run = await readRun(runId, caller);
      if (!run) return unknownRun(runId);
      return { ok: true, runId, checkpoints: checkpointsOf(run.events, run.carried).map(entryOf) };
    },

    async checkpoint(runId, checkpointId, caller) {
      const run = await readRun(runId, caller);
      if (!run) return unknownRun(runId);
      const state = checkpointState(run.events, checkpointId, run.carried);
      if (!state)
        return {
          ok: false,
          status: 404,
          message: `Run ${runId} has no checkpoint "${checkpointId}" (GET /api/runs/${runId}/checkpoints lists them).`,
        };
      return { ok: true, runId, checkpoint: publicView(state) };
    },

    async fork(runId, caller, body, protocol) {
      const parsed = ForkBodySchema.safeParse(body ?? {});
      if (!parsed.success) return { ok: false, status: 400, message: issueMessage(parsed.error, '') };
      const run = await readRun(runId, caller);
      if (!run) return unknownRun(runId);
      const { checkpoint, edit = {} } = parsed.data;
      const state = checkpointState(run.events, checkpoint, run.carried);
      if (!state)
        return {
          ok: false,
          status: 400,
          message: `run ${runId} has no checkpoint "${checkpoint}" (GET /api/runs/${runId}/checkpoints lists them)`,
        };
      const forked = planFork(runId, run.request, state, edit, await knownSpecialists());
      if (!forked.ok) return { ok: false, status: 400, message: forked.message };
      const handle = deps.engine.start(
        { ...forked.request, caller, protocol },
        forked.resumeFrom ? { resumeFrom: forked.resumeFrom } : {},
      );
      await untilRecorded(handle);
      return { ok: true, handle, forkedFrom: forked.request.forkedFrom };
    },

    async replay(runId, caller, body, protocol) {
      const parsed = ReplayBodySchema.safeParse(body ?? {});
      if (!parsed.success) return { ok: false, status: 400, message: issueMessage(parsed.error, '') };
      const run = await readRun(runId, caller);
      if (!run) return unknownRun(runId);
      const replay = replayRequest(runId, run.request, parsed.data, await knownSpecialists());
      if (!replay.ok) return { ok: false, status: 400, message: replay.message };
      const handle = deps.engine.start({ ...replay.request, caller, protocol });
      await untilRecorded(handle);
      return { ok: true, handle };
    },

    async compare(a, b, caller) {
      const [x, y] = await Promise.all([readRun(a, caller), readRun(b, caller)]);
      if (!x) return unknownRun(a);
      if (!y) return unknownRun(b);
      const [sa, sb] = [summarize(x.events, x.carried), summarize(y.events, y.carried)];
      return { ok: true, a: sa, b: sb, differences: differences(sa, sb) };
    },
  };
}
