/**
 * Approvals in the run store (docs/durability.md): a request is listed, answerable and announced only
 * once committed there, and a decision is committed before the run acts on it, so a restart never asks
 * again and never loses an answer. A failing store is logged and never wedges a waiting run.
 */
import type { Logger } from '../log.ts';
import type { ApprovalRecords } from '../store/runs/run-store.ts';
import type { ApprovalOutcome, ApprovalRequest } from './types.ts';

export class ApprovalDurability {
  readonly #store: ApprovalRecords;
  readonly #logger: Logger;

  constructor(store: ApprovalRecords, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /**
   * Commits a new request. Settles once it is committed, or once committing failed (logged: the request
   * still waits, in this process only); `committed` runs in both cases, before the promise settles.
   */
  putPending(request: ApprovalRequest, ownerId: string, committed: (stored: boolean) => void): Promise<void> {
    const write = this.#store.putPending({
      id: request.id,
      runId: request.runId,
      callerId: ownerId,
      request,
      updatedAt: Date.now(),
    });
    return write.then(
      () => committed(true),
      (err: unknown) => {
        this.#logger.error('storing an approval request failed', { id: request.id, error: String(err) });
        committed(false);
      },
    );
  }

  /** Commits a decision; a failure is logged (the run still acts on it: it was decided). */
  async decide(id: string, outcome: ApprovalOutcome): Promise<void> {
    await this.#store.decide(id, outcome).catch((err: unknown) => {
      this.#logger.error('storing an approval decision failed', { id, error: String(err) });
    });
  }

  /**
   * A decision committed by another replica for this one to act on (throws when the store cannot be
   * read): committed there first, so it is here even if the news was lost.
   */
  async decided(id: string): Promise<ApprovalOutcome | undefined> {
    const stored = await this.#store.get(id);
    return stored?.status === 'decided' ? (stored.outcome as ApprovalOutcome | undefined) : undefined;
  }

  /** Whether a decision is committed (Postgres has the last word when Redis was away). */
  async isDecided(id: string): Promise<boolean> {
    return (await this.#store.get(id))?.status === 'decided';
  }

  /** Commits a decision made here for a request another replica holds (a failure throws to the answerer). */
  decideFor(id: string, outcome: ApprovalOutcome): Promise<void> {
    return this.#store.decide(id, outcome);
  }
}
