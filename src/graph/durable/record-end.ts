/**
 * The end of a run as it is remembered: its execution-memory record goes to the knowledge store after
 * the run's result, off its critical path. The run store is the queue that survives a restart: the run's
 * end is stored with that record and `remembered: false` (durable/persist-events.ts) before the knowledge
 * store is asked, and marked remembered once the knowledge store has it; a start after kill -9 hands the
 * records still unremembered to the knowledge store again (durable/recover.ts), which records a run id
 * once (idempotent).
 *
 * The writes wait up to MEMORY_DEFER_MS so that runs finishing one after another share one write
 * transaction (knowledge/cypher/run-recorder.ts); the knowledge store's reads that need a waiting record
 * write it at once, so a client that has its answer still reads its run, and the router's next run sees
 * a record that could change which team it reuses (CypherStore.findTeamConfig). Bounded: past
 * MAX_PENDING_MEMORY_WRITES a run waits for its own write, as every run did before.
 */
import type { RunRecord } from '../../knowledge/store.ts';
import type { EngineContext, RunState } from '../run/state.ts';

/**
 * How long a record may wait for others to share its write transaction. 2 s rather than 500 ms: runs one at
 * a time (~50 ms each) then share a transaction ~40 at a time, ~1.3 ms of CPU per record less
 * (docs/performance.md, "the deferred Kuzu write really batches"); every read that needs a record writes it first.
 */
export const MEMORY_DEFER_MS = 2_000;
/** Records written in the background at most; a run finishing beyond it waits for its write. */
export const MAX_PENDING_MEMORY_WRITES = 256;

export async function recordEnd(
  ctx: EngineContext,
  run: RunState,
  memory: RunRecord | undefined,
  writes: MemoryWrites,
): Promise<void> {
  if (!memory) return;
  // The run's end, carrying this record, is committed to the run store first (its event batch).
  await run.log.committed();
  const written = writes.add(run.id, ctx, memory);
  if (writes.size > MAX_PENDING_MEMORY_WRITES) await written;
}

/** The execution-memory writes of one engine still under way. */
export class MemoryWrites {
  readonly #pending = new Map<string, Promise<void>>();
  /** Runs whose records were committed, to note as remembered in the run store in one write. */
  #remembered: string[] = [];
  #marking?: Promise<void>;
  /** Set by settle(): the engine is closing, so no record waits for others any more. */
  #closing = false;

  get size(): number {
    return this.#pending.size;
  }

  /** Hands the record to the knowledge store; the promise settles once it is written (or failed, logged). */
  add(runId: string, ctx: EngineContext, memory: RunRecord): Promise<void> {
    const written = ctx.store
      .recordRun(memory, { deferMs: this.#closing ? 0 : MEMORY_DEFER_MS })
      .then(
        () => this.#markRemembered(ctx, runId),
        (err: unknown) => {
          // The run store keeps it unremembered: the next start records it again.
          ctx.logger.error('recording the run in execution memory failed', {
            runId,
            error: (err as Error).message,
          });
        },
      )
      .finally(() => {
        if (this.#pending.get(runId) === written) this.#pending.delete(runId);
      });
    this.#pending.set(runId, written);
    return written;
  }

  /** Settles once the run's record (or, without an id, every record handed over so far) is written. */
  async recorded(runId?: string): Promise<void> {
    if (runId !== undefined) return this.#pending.get(runId);
    while (this.#pending.size) await Promise.all(this.#pending.values());
  }

  /**
   * For a closing engine: every record written now, not after its deferral (MEMORY_DEFER_MS), and noted
   * remembered. Waiting the deferral out held every `parley run`, `parley eval` and stop of `parley serve`
   * that had finished a run 2 s longer, for no batch to join.
   */
  async settle(ctx: EngineContext): Promise<void> {
    this.#closing = true;
    if (this.#pending.size) await ctx.store.settleRuns();
    await this.recorded();
  }

  /** The records of one batch commit together: they are noted in the run store together, one write. */
  #markRemembered(ctx: EngineContext, runId: string): Promise<void> {
    const runStore = ctx.runStore;
    if (!runStore) return Promise.resolve();
    this.#remembered.push(runId);
    this.#marking ??= Promise.resolve().then(async () => {
      const ids = this.#remembered;
      this.#remembered = [];
      this.#marking = undefined;
      // A failure is logged by the store; the records stay unremembered and the next start checks them.
      await runStore.runs.markRemembered(ids).catch(() => undefined);
    });
    return this.#marking;
  }
}
