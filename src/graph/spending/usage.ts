/**
 * Budgets: what a run (and its caller) may still spend, checked BEFORE each model or tool call by
 * reservation, and settled from the real usage afterwards. Plain data plus small functions;
 * the per-caller ledger is a class because it owns state across runs.
 */
import type { ModelUsage } from '../../llm/types.ts';
import { BudgetExceededError } from './budget-error.ts';
import type { CallerLedger } from './ledger.ts';

/** Budget limits; every field optional in overrides, which may only lower the configured defaults. */
export interface Budget {
  tokens: number;
  costUsd: number;
  modelCalls: number;
  toolCalls: number;
  wallTimeMs: number;
}

/** What a run has used so far (the usage event, run.finished). */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** null when any call used a model with no known price. */
  costUsd: number | null;
  modelCalls: number;
  toolCalls: number;
}

export { BudgetExceededError };

export function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0 };
}

export function addUsage(into: UsageTotals, usage: ModelUsage): void {
  into.inputTokens += usage.inputTokens;
  into.outputTokens += usage.outputTokens;
  into.cachedTokens += usage.cachedTokens;
  into.costUsd = into.costUsd === null || usage.costUsd === null ? null : into.costUsd + usage.costUsd;
}

export function sumUsage(parts: UsageTotals[]): UsageTotals {
  const total = emptyUsage();
  for (const p of parts) {
    total.inputTokens += p.inputTokens;
    total.outputTokens += p.outputTokens;
    total.cachedTokens += p.cachedTokens;
    total.costUsd = total.costUsd === null || p.costUsd === null ? null : total.costUsd + p.costUsd;
    total.modelCalls += p.modelCalls;
    total.toolCalls += p.toolCalls;
  }
  return total;
}

export const totalTokens = (u: UsageTotals) => u.inputTokens + u.outputTokens;

/** The run budget: configured defaults, lowered (never raised) by a request's overrides. */
export function effectiveBudget(defaults: Budget, overrides?: Partial<Budget>): Budget {
  const pick = (key: keyof Budget) => {
    const o = overrides?.[key];
    return typeof o === 'number' && Number.isFinite(o) && o >= 0 ? Math.min(defaults[key], o) : defaults[key];
  };
  return {
    tokens: pick('tokens'),
    costUsd: pick('costUsd'),
    modelCalls: pick('modelCalls'),
    toolCalls: pick('toolCalls'),
    wallTimeMs: pick('wallTimeMs'),
  };
}

/** The fewest tokens a model call of an agent takes (a system prompt and a short task): budget checks before a spawn. */
export const MIN_TOKENS_PER_CALL = 200;

/** Rough input-token estimate (4 characters a token) used for the reservation before a call. */
export function estimateTokens(texts: Iterable<string>): number {
  let chars = 0;
  for (const t of texts) chars += t.length;
  return Math.ceil(chars / 4);
}

/**
 * One run's meter: reserve before a call (throws BudgetExceededError when the call would exceed the
 * run's, the caller's or the thread's budget), settle with the real usage after. Reservations are
 * held in the ledger too, so concurrent runs of one caller or thread see each other's calls in flight.
 */
export class UsageMeter {
  readonly totals: UsageTotals = emptyUsage();
  readonly budget: Budget;
  private readonly callerId: string;
  private readonly threadId: string | undefined;
  private readonly ledger: CallerLedger;
  private readonly startedAt: number;
  private readonly now: () => number;
  private reservedTokens = 0;
  private reservedCostUsd = 0;
  private inFlightModelCalls = 0;
  private inFlightToolCalls = 0;

  constructor(options: {
    budget: Budget;
    callerId: string;
    threadId?: string;
    ledger: CallerLedger;
    startedAt: number;
    now: () => number;
  }) {
    this.budget = options.budget;
    this.callerId = options.callerId;
    this.threadId = options.threadId;
    this.ledger = options.ledger;
    this.startedAt = options.startedAt;
    this.now = options.now;
  }

  private checkWall() {
    const elapsed = this.now() - this.startedAt;
    if (elapsed >= this.budget.wallTimeMs) {
      throw new BudgetExceededError(`wall time budget: run has taken ${elapsed} ms of ${this.budget.wallTimeMs} ms`);
    }
  }

  /**
   * Reserves one model call with an estimated input size and cost (null: unknown price); returns
   * the settle/release handle. Throws BudgetExceededError when the call would exceed a budget.
   */
  reserveModelCall(estimatedTokens: number, estimatedCostUsd: number | null = 0): ModelCallReservation {
    this.checkWall();
    const calls = this.totals.modelCalls + this.inFlightModelCalls;
    if (calls + 1 > this.budget.modelCalls) {
      const inFlight = this.inFlightModelCalls ? ` (${this.inFlightModelCalls} still in flight)` : '';
      throw new BudgetExceededError(
        `model call budget: run has made ${calls} of ${this.budget.modelCalls} model calls${inFlight}`,
      );
    }
    const used = totalTokens(this.totals) + this.reservedTokens;
    if (used + estimatedTokens > this.budget.tokens) {
      throw new BudgetExceededError(
        `token budget: run has used ${used} of ${this.budget.tokens} tokens and the next call needs about ${estimatedTokens}`,
      );
    }
    const cost = estimatedCostUsd ?? 0;
    const spent = (this.totals.costUsd ?? 0) + this.reservedCostUsd;
    if (spent + cost > this.budget.costUsd || spent >= this.budget.costUsd) {
      throw new BudgetExceededError(
        `cost budget: run has spent $${spent.toFixed(6)} of $${this.budget.costUsd} and the next call needs about $${cost.toFixed(6)}`,
      );
    }
    this.ledger.checkSpend(this.callerId, estimatedTokens, cost, this.threadId);
    this.ledger.reserve(this.callerId, this.threadId, estimatedTokens, cost);
    this.inFlightModelCalls++;
    this.reservedTokens += estimatedTokens;
    this.reservedCostUsd += cost;
    return new ModelCallReservation(this, estimatedTokens, cost);
  }

  /** @internal ModelCallReservation's exit: frees the reservation, and charges the usage if given. */
  endModelCall(estimatedTokens: number, cost: number, usage?: ModelUsage): void {
    this.inFlightModelCalls--;
    this.reservedTokens -= estimatedTokens;
    this.reservedCostUsd -= cost;
    this.ledger.release(this.callerId, this.threadId, estimatedTokens, cost);
    if (!usage) return;
    this.totals.modelCalls++;
    addUsage(this.totals, usage);
    this.ledger.charge(this.callerId, usage, this.threadId);
  }

  /**
   * Tokens and cost the next call may still use: the least of what the run, its caller and its
   * thread have left, calls in flight deducted. The metered model caps the call's output by it.
   */
  headroom(): { tokens: number; costUsd: number } {
    const ledger = this.ledger.headroom(this.callerId, this.threadId);
    return {
      tokens: Math.min(ledger.tokens, this.budget.tokens - totalTokens(this.totals) - this.reservedTokens),
      costUsd: Math.min(ledger.costUsd, this.budget.costUsd - (this.totals.costUsd ?? 0) - this.reservedCostUsd),
    };
  }

  /**
   * Why the budgets have no room for `calls` more model calls (of at least MIN_TOKENS_PER_CALL tokens
   * each), or undefined. A dynamic team asks before it spawns an agent: the spawn is refused with the
   * reason rather than letting the run end blocked half-way (docs/engine.md "Dynamic teams").
   */
  roomFor(calls: number): string | undefined {
    const made = this.totals.modelCalls + this.inFlightModelCalls;
    if (made + calls > this.budget.modelCalls)
      return `${made} of its ${this.budget.modelCalls} model calls are made, and the agents running, the new one and the answer need at least ${calls} more`;
    if (this.now() - this.startedAt >= this.budget.wallTimeMs) return 'its wall time is used up';
    const { tokens, costUsd } = this.headroom();
    if (tokens < calls * MIN_TOKENS_PER_CALL)
      return `about ${Math.max(0, tokens)} tokens are left, and the ${calls} calls still needed take at least ${calls * MIN_TOKENS_PER_CALL}`;
    if (costUsd <= 0) return 'no cost budget is left';
    return undefined;
  }

  reserveToolCall(): { settle(): void; release(): void } {
    this.checkWall();
    const calls = this.totals.toolCalls + this.inFlightToolCalls;
    if (calls + 1 > this.budget.toolCalls) {
      const inFlight = this.inFlightToolCalls ? ` (${this.inFlightToolCalls} still in flight)` : '';
      throw new BudgetExceededError(
        `tool call budget: run has made ${calls} of ${this.budget.toolCalls} tool calls${inFlight}`,
      );
    }
    this.inFlightToolCalls++;
    let open = true;
    return {
      settle: () => {
        if (!open) return;
        open = false;
        this.inFlightToolCalls--;
        this.totals.toolCalls++;
      },
      release: () => {
        if (!open) return;
        open = false;
        this.inFlightToolCalls--;
      },
    };
  }
}

/**
 * One reserved model call: settle with the real usage, or release (no usage) — whichever comes
 * first counts, later calls are no-ops. A class rather than two closures: one small object per call.
 */
export class ModelCallReservation {
  private open = true;

  constructor(
    private readonly meter: UsageMeter,
    private readonly tokens: number,
    private readonly cost: number,
  ) {}

  settle(usage: ModelUsage): void {
    if (!this.open) return;
    this.open = false;
    this.meter.endModelCall(this.tokens, this.cost, usage);
  }

  release(): void {
    if (!this.open) return;
    this.open = false;
    this.meter.endModelCall(this.tokens, this.cost);
  }
}

/** The wall-time budget: aborts the run's controller once `ms` have passed. Returns what clears the timer. */
export function wallTimeLimit(abort: AbortController, ms: number): () => void {
  const timer = setTimeout(
    () => abort.abort(new BudgetExceededError(`wall time budget: the run took longer than ${ms} ms`)),
    ms,
  );
  timer.unref?.();
  return () => clearTimeout(timer);
}
