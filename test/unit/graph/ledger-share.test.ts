/**
 * The caller ledger shared by replicas (src/graph/replicas/shared-ledger.ts): what one ledger tells
 * (run starts, settled charges) the other counts as its own; reservations stay local.
 */
import { describe, expect, it } from 'vitest';
import { CallerLedger, type LedgerDelta } from '../../../src/graph/spending/ledger.ts';

const limits = { tokens: 1000, costUsd: 10, windowMs: 3_600_000, runsPerMinute: 3 };
const usage = (tokens: number) => ({ model: 'm', inputTokens: tokens, outputTokens: 0, cachedTokens: 0, costUsd: 0.5 });

function pair(now: () => number) {
  const a = new CallerLedger(limits, now, { thread: { tokens: 300, costUsd: 10 } });
  const b = new CallerLedger(limits, now, { thread: { tokens: 300, costUsd: 10 } });
  const told: LedgerDelta[] = [];
  a.share = (d) => {
    told.push(d);
    b.apply(d);
  };
  b.share = (d) => a.apply(d);
  return { a, b, told };
}

describe('a ledger shared by replicas', () => {
  it("counts the other replica's run starts against the per-minute limit", () => {
    let now = 0;
    const { a, b } = pair(() => now);
    a.admitRun('k1');
    a.admitRun('k1');
    b.admitRun('k1');
    expect(() => a.admitRun('k1')).toThrow(/rate limit: caller "k1" may start 3 runs per minute/);
    expect(() => b.admitRun('k2')).not.toThrow();
    now = 60_001;
    expect(() => a.admitRun('k1')).not.toThrow();
  });

  it("counts the other's settled spend for the caller and the thread; reservations stay local", () => {
    const { a, b, told } = pair(() => 0);
    a.reserve('k1', 't1', 500, 0);
    expect(told).toEqual([]);
    expect(b.headroom('k1', 't1').tokens).toBe(300);
    a.release('k1', 't1', 500, 0);
    a.charge('k1', usage(250), 't1');
    expect(told).toEqual([{ type: 'charge', caller: 'k1', thread: 't1', tokens: 250, costUsd: 0.5 }]);
    expect(b.headroom('k1', 't1')).toEqual({ tokens: 50, costUsd: 9.5 });
    expect(() => b.checkSpend('k1', 100, 0, 't1')).toThrow(/thread token budget/);
    expect(b.headroom('k1').tokens).toBe(750);
    // What was heard is in the ledger file's snapshot too (a restart keeps it).
    expect(b.snapshot().callers.k1).toMatchObject({ tokens: 250, costUsd: 0.5 });
  });
});
