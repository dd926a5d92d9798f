/**
 * Admission at engine.start: the caller's rate limit and its caller and thread window budgets, checked
 * before a run exists. A refused request is not a run (nothing stored, nothing retained, so one caller's
 * flood of refusals cannot push another caller's finished runs out of retention); it is counted: a warn
 * line in the log, the OpenTelemetry counter `parley.runs.refused` (by reason and protocol), and the
 * engine's own tally (RunEngine.refusedStarts).
 */
import { metrics } from '@opentelemetry/api';
import type { Logger } from '../../log.ts';
import type { CallerLedger } from './ledger.ts';
import { BudgetExceededError } from './usage.ts';

export type RefusalReason = 'rate_limit' | 'budget';

export interface Refusal {
  error: string;
  retryAfterMs: number;
  reason: RefusalReason;
}

const refusedCounter = () =>
  metrics
    .getMeter('parley')
    .createCounter('parley.runs.refused', { description: 'Run requests refused before they started' });

export class StartAdmission {
  readonly #ledger: Pick<CallerLedger, 'admitRun'>;
  readonly #logger: Logger;
  readonly #counter = refusedCounter();
  readonly #tally: Record<RefusalReason, number> = { rate_limit: 0, budget: 0 };

  constructor(ledger: Pick<CallerLedger, 'admitRun'>, logger: Logger) {
    this.#ledger = ledger;
    this.#logger = logger;
  }

  /** Refusals so far, by reason. */
  get refused(): Readonly<Record<RefusalReason, number>> {
    return { ...this.#tally };
  }

  /** Counts the start against the caller's limits; the refusal when they say no. */
  admit(callerId: string, threadId: string | undefined, protocol: string): Refusal | undefined {
    try {
      this.#ledger.admitRun(callerId, threadId);
      return undefined;
    } catch (err) {
      if (!(err instanceof BudgetExceededError)) throw err;
      const reason: RefusalReason = err.message.startsWith('rate limit') ? 'rate_limit' : 'budget';
      this.#tally[reason] += 1;
      this.#counter.add(1, { reason, protocol });
      this.#logger.warn('run refused before it started', { callerId, protocol, reason, error: err.message });
      // The ledger always says when a refused start frees up; 0 only if a future limit cannot tell.
      return { error: err.message, retryAfterMs: err.retryAfterMs ?? 0, reason };
    }
  }
}
