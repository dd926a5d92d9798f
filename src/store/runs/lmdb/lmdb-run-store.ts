/**
 * The embedded RunStore: four named databases of the data dir's LMDB environment (store/kv.ts).
 * LMDB commits writes in the order they are made and a write's promise resolves once its transaction
 * is committed, so an awaited write survives kill -9 (docs/durability.md).
 */
import type { Kv } from '../../kv.ts';
import type {
  ApprovalRecords,
  Checkpoint,
  RunCheckpoints,
  RunEventLogs,
  RunRecords,
  RunStore,
  StoredApproval,
  StoredEvent,
  StoredRun,
  StoredStep,
} from '../run-store.ts';

/** Key bounds: every string key part sorts below this (ordered-binary keys compare UTF-8 bytes). */
const HIGH = '\uffff';

export function openLmdbRunStore(kv: Kv, options: { closeKv?: boolean } = {}): RunStore {
  const runsDb = kv.db<StoredRun>('runs');
  const checkpointDb = kv.db<unknown>('run-checkpoints');
  const eventDb = kv.db<StoredEvent | readonly StoredEvent[]>('run-events');
  const approvalDb = kv.db<StoredApproval>('run-approvals');
  /** approval id → run id, so an approval is found by id alone. */
  const approvalRunDb = kv.db<string>('run-approval-runs');

  const runs: RunRecords = {
    put: async (run) => void (await runsDb.put(run.id, run)),
    get: async (id) => runsDb.get(id),
    listUnfinished: async () => [...runsDb.getRange({})].map((e) => e.value).filter((r) => r.status === 'running'),
    listFinished: async () =>
      [...runsDb.getRange({})]
        .map((e) => e.value)
        .filter((r) => r.status !== 'running')
        .sort((a, b) => a.updatedAt - b.updatedAt),
    markRemembered: async (ids) => {
      await runsDb.transaction(() => {
        for (const id of ids) {
          const run = runsDb.get(id);
          if (run && run.remembered === false) runsDb.putSync(id, { ...run, remembered: true });
        }
      });
    },
  };

  const checkpoints: RunCheckpoints = {
    savePlan: async (runId, plan, round) => void (await checkpointDb.put([runId, 'plan'], { plan, round })),
    saveStep: async (runId, step) => void (await checkpointDb.put([runId, 'step', step.stepId], step)),
    async load(runId) {
      const head = checkpointDb.get([runId, 'plan']) as { plan: unknown; round: number } | undefined;
      const steps = [...checkpointDb.getRange({ start: [runId, 'step', ''], end: [runId, 'step', HIGH] })].map(
        (e) => e.value as StoredStep,
      );
      if (!head && steps.length === 0) return undefined;
      const checkpoint: Checkpoint = { steps };
      if (head) {
        checkpoint.plan = head.plan;
        checkpoint.planRound = head.round;
      }
      return checkpoint;
    },
  };

  /**
   * An append is one value, the batch of events, keyed by the run and the batch's last seq: a run's events come
   * in about ten batches (durable/persist-events.ts), so a run makes ten puts here instead of one per event (~450
   * before streamed deltas were joined per network read). Keyed by the last seq, a range from afterSeq + 1 starts
   * at the batch holding the next event. A value that is one event (data dirs before the batching) is a batch of one.
   */
  const events: RunEventLogs = {
    async append(runId, list) {
      const last = list.at(-1);
      if (last) await eventDb.put([runId, last.seq], list);
    },
    async read(runId, afterSeq = 0, limit = Infinity) {
      const out: StoredEvent[] = [];
      if (limit <= 0) return out;
      for (const { value } of eventDb.getRange({
        start: [runId, afterSeq + 1],
        end: [runId, Number.MAX_SAFE_INTEGER],
      })) {
        for (const event of Array.isArray(value) ? value : [value]) {
          if (event.seq <= afterSeq) continue;
          out.push(event);
          if (out.length >= limit) return out;
        }
      }
      return out;
    },
  };

  const approvals: ApprovalRecords = {
    async putPending(a) {
      const record: StoredApproval = { ...a, status: 'pending' };
      void approvalRunDb.put(a.id, a.runId);
      await approvalDb.put([a.runId, a.id], record);
    },
    async decide(id, outcome) {
      const runId = approvalRunDb.get(id);
      if (runId === undefined) return;
      const current = approvalDb.get([runId, id]);
      if (!current) return;
      await approvalDb.put([runId, id], { ...current, status: 'decided', outcome, updatedAt: Date.now() });
    },
    async get(id) {
      const runId = approvalRunDb.get(id);
      return runId === undefined ? undefined : approvalDb.get([runId, id]);
    },
    listPending: async () => [...approvalDb.getRange({})].map((e) => e.value).filter((a) => a.status === 'pending'),
    listForRun: async (runId) =>
      [...approvalDb.getRange({ start: [runId, ''], end: [runId, HIGH] })].map((e) => e.value),
  };

  return {
    runs,
    checkpoints,
    events,
    approvals,
    async forget(runId) {
      await runsDb.transaction(() => {
        runsDb.removeSync(runId);
        for (const key of checkpointDb.getKeys({ start: [runId, ''], end: [runId, HIGH] }))
          checkpointDb.removeSync(key);
        for (const key of eventDb.getKeys({ start: [runId, 0], end: [runId, Number.MAX_SAFE_INTEGER] }))
          eventDb.removeSync(key);
        for (const { key, value } of approvalDb.getRange({ start: [runId, ''], end: [runId, HIGH] })) {
          approvalRunDb.removeSync(value.id);
          approvalDb.removeSync(key);
        }
      });
    },
    async close() {
      if (options.closeKv !== false) await kv.close();
    },
  };
}
