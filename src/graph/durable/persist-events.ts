/**
 * What a run writes to the run store as it goes (docs/durability.md): every event into its event log,
 * the plan and each finished step into its checkpoint, and its record once it ends. Writes are not
 * awaited by the engine (LMDB batches them and commits them in order); the events a client must never
 * see uncommitted hand their commit back, and the run's event log holds consumers at them until then.
 */
import type { Logger } from '../../log.ts';
import type { RunStore, StoredEvent, StoredRun } from '../../store/runs/run-store.ts';
import type { GraphEvent } from '../events.ts';
import type { GraphPlan } from '../graph-plan.ts';

/** Events a client is told only once committed: an id it may answer, a result it may rely on, the end. */
const COMMIT_FIRST = new Set<GraphEvent['type']>(['approval.requested', 'step.finished', 'run.finished']);

export interface PersistedRun {
  record: StoredRun;
  /** The run's current plan (read when a step finishes: the checkpoint keeps the step as planned). */
  plan(): GraphPlan | undefined;
}

export function persistEvents(
  store: RunStore,
  run: PersistedRun,
  logger: Logger,
): (event: GraphEvent) => Promise<unknown> | undefined {
  const failed = (what: string) => (err: unknown) => {
    logger.error(`run store: ${what} failed`, { runId: run.record.id, error: String(err) });
  };
  return (event) => {
    const writes: Promise<unknown>[] = [
      store.events.append(run.record.id, [event as unknown as StoredEvent]).catch(failed('appending an event')),
    ];
    if (event.type === 'plan.ready') {
      writes.push(
        store.checkpoints.savePlan(run.record.id, event.plan, event.round).catch(failed('checkpointing a plan')),
      );
    } else if (event.type === 'step.finished') {
      const step = run.plan()?.steps.find((s) => s.id === event.stepId);
      const { type: _type, runId: _runId, seq: _seq, at: _at, ...outcome } = event;
      writes.push(
        store.checkpoints
          .saveStep(run.record.id, { stepId: event.stepId, step, outcome })
          .catch(failed('checkpointing a step')),
      );
    } else if (event.type === 'run.finished') {
      const { type: _type, runId: _runId, seq: _seq, at: _at, ...ending } = event;
      const at = Date.parse(event.at);
      writes.push(
        store.runs
          .put({ ...run.record, status: event.status, ending, updatedAt: Number.isNaN(at) ? Date.now() : at })
          .catch(failed('recording the end of a run')),
      );
    }
    return COMMIT_FIRST.has(event.type) ? Promise.all(writes) : undefined;
  };
}
