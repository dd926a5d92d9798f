/**
 * What a run writes to the run store as it goes (docs/durability.md): every event into its event log,
 * the plan and each finished step into its checkpoint, and its record once it ends. The engine never
 * waits for a write (LMDB batches them and commits them in order); each event hands its commit back and
 * the run's event log holds consumers at it until then, so no client is told anything a kill -9 could
 * take back. Many events share one commit, so this costs a commit's latency, not one per event.
 */
import type { Logger } from '../../log.ts';
import type { RunStore, StoredEvent, StoredRun } from '../../store/runs/run-store.ts';
import type { GraphEvent } from '../events.ts';
import type { GraphPlan } from '../graph-plan.ts';

export interface PersistedRun {
  record: StoredRun;
  /** The run's current plan (read when a step finishes: the checkpoint keeps the step as planned). */
  plan(): GraphPlan | undefined;
}

export function persistEvents(
  store: RunStore,
  run: PersistedRun,
  logger: Logger,
): (event: GraphEvent) => Promise<unknown> {
  // The store retried the write and marked the run degraded (logged, GET /ready); the run goes on in
  // memory and its clients are not held. One line per run here: a degraded run fails every write.
  let told = false;
  const failed = (what: string) => (err: unknown) => {
    if (told) return;
    told = true;
    logger.error(`run store: ${what} failed; the run goes on in memory`, { runId: run.record.id, error: String(err) });
  };
  return (event) => {
    const appended = store.events
      .append(run.record.id, [event as unknown as StoredEvent])
      .catch(failed('appending an event'));
    // One environment commits in order: what is written after the event commits with it or later.
    if (event.type !== 'plan.ready' && event.type !== 'step.finished' && event.type !== 'run.finished') return appended;
    const writes: Promise<unknown>[] = [appended];
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
    return Promise.all(writes);
  };
}
