import { describe, expect, it } from 'vitest';
import { CallerLedger } from '../../../src/graph/spending/ledger.ts';
import { BudgetExceededError, UsageMeter, effectiveBudget } from '../../../src/graph/spending/usage.ts';

const run = { tokens: 1000, costUsd: 1, modelCalls: 3, toolCalls: 2, wallTimeMs: 60_000 };
const caller = { tokens: 5000, costUsd: 10, windowMs: 3_600_000, runsPerMinute: 2 };
const usage = (inputTokens: number, outputTokens: number, costUsd: number | null = 0.1) => ({
  model: 'm',
  inputTokens,
  outputTokens,
  cachedTokens: 0,
  costUsd,
});

describe('budgets', () => {
  it('overrides may only lower the configured budget', () => {
    expect(effectiveBudget(run, { tokens: 10, modelCalls: 99, costUsd: -1 })).toEqual({ ...run, tokens: 10 });
  });

  it('reserves before a call: in-flight calls count, settled usage accumulates, release frees the slot', () => {
    let now = 0;
    const ledger = new CallerLedger(caller, () => now);
    const meter = new UsageMeter({ budget: run, callerId: 'c', ledger, startedAt: 0, now: () => now });
    const a = meter.reserveModelCall(100);
    const b = meter.reserveModelCall(100);
    const c = meter.reserveModelCall(100);
    expect(() => meter.reserveModelCall(1)).toThrow(
      'model call budget: run has made 3 of 3 model calls (3 still in flight)',
    );
    c.release();
    a.settle(usage(300, 200));
    b.settle(usage(300, 100));
    expect(meter.totals).toMatchObject({ inputTokens: 600, outputTokens: 300, modelCalls: 2 });
    expect(() => meter.reserveModelCall(200)).toThrow(
      'token budget: run has used 900 of 1000 tokens and the next call needs about 200',
    );
    const t1 = meter.reserveToolCall();
    meter.reserveToolCall().settle();
    expect(() => meter.reserveToolCall()).toThrow(BudgetExceededError);
    t1.release();
    now = 60_000;
    expect(() => meter.reserveToolCall()).toThrow('wall time budget: run has taken 60000 ms of 60000 ms');
  });

  it('reserves estimated cost: in-flight reservations count against the cost budget', () => {
    const ledger = new CallerLedger(caller, () => 0);
    const meter = new UsageMeter({ budget: run, callerId: 'c', ledger, startedAt: 0, now: () => 0 });
    const a = meter.reserveModelCall(10, 0.6);
    expect(() => meter.reserveModelCall(10, 0.5)).toThrow(
      'cost budget: run has spent $0.600000 of $1 and the next call needs about $0.500000',
    );
    a.settle(usage(10, 10, 0.7));
    expect(() => meter.reserveModelCall(10, 0.31)).toThrow(/^cost budget: run has spent \$0\.700000 of \$1/);
    meter.reserveModelCall(10, null).release(); // unknown price: only what was spent counts
  });

  it('rate-limits run starts per caller per minute with a retry-after, independently per caller', () => {
    let now = 1_000_000;
    const ledger = new CallerLedger(caller, () => now);
    ledger.admitRun('a');
    now += 20_000;
    ledger.admitRun('a');
    now += 10_000;
    let error: BudgetExceededError | undefined;
    try {
      ledger.admitRun('a');
    } catch (e) {
      error = e as BudgetExceededError;
    }
    expect(error?.message).toBe('rate limit: caller "a" may start 2 runs per minute; retry in 30 s');
    expect(error?.retryAfterMs).toBe(30_000);
    ledger.admitRun('b');
    now += 30_000;
    ledger.admitRun('a');
  });

  it('blocks a caller over its window spend until the window rolls over', () => {
    let now = 0;
    const ledger = new CallerLedger(caller, () => now);
    ledger.charge('a', usage(4000, 900, 0));
    expect(() => ledger.checkSpend('a', 200)).toThrow(
      'caller token budget: "a" has used 4900 of 5000 tokens in this window',
    );
    now = caller.windowMs;
    expect(() => ledger.checkSpend('a', 200)).not.toThrow();
  });
});
