/**
 * The caller ledger's per-thread spend (src/graph/spending/ledger.ts): held per caller and thread id, at
 * most 10,000 threads over every caller, expired windows dropped first and then the oldest idle ones, never
 * a thread with a call in flight; what the ledger file keeps across a restart.
 */
import { describe, expect, it } from 'vitest';
import { CallerLedger } from '../../../src/graph/spending/ledger.ts';

const HOUR = 3_600_000;
const limits = { tokens: 1e9, costUsd: 1e6, windowMs: HOUR, runsPerMinute: 1e6 };
const thread = { tokens: 1000, costUsd: 100 };
const usage = (tokens: number) => ({ model: 'm', inputTokens: tokens, outputTokens: 0, cachedTokens: 0, costUsd: 0 });
/** The ledger's bound on threads (MAX_ENTRIES), over every caller. */
const MAX = 10_000;

describe("a caller ledger's threads", () => {
  it('keeps two callers apart when they name the same thread, in the snapshot and after a restore', () => {
    const ledger = new CallerLedger(limits, () => 0, { thread });
    ledger.charge('alice', usage(900), 't');
    ledger.charge('bob', usage(100), 't');
    expect(() => ledger.checkSpend('alice', 200, 0, 't')).toThrow(/thread token budget: thread "t"/);
    expect(() => ledger.checkSpend('bob', 200, 0, 't')).not.toThrow();
    const snapshot = ledger.snapshot();
    expect(snapshot.threads).toEqual(
      expect.arrayContaining([
        { caller: 'alice', thread: 't', windowStart: 0, tokens: 900, costUsd: 0 },
        { caller: 'bob', thread: 't', windowStart: 0, tokens: 100, costUsd: 0 },
      ]),
    );
    expect(snapshot.threads).toHaveLength(2);
    const restored = new CallerLedger(limits, () => 1, { thread, restore: snapshot });
    expect(restored.headroom('alice', 't').tokens).toBe(100);
    expect(restored.headroom('bob', 't').tokens).toBe(900);
    expect(restored.snapshot().threads).toHaveLength(2);
  });

  it('holds at most 10,000 threads over every caller: the oldest idle window goes, a call in flight stays', () => {
    let now = 0;
    const ledger = new CallerLedger(limits, () => now, { thread });
    // The oldest thread has a call in flight; the next oldest is idle.
    ledger.reserve('alice', 'busy', 500, 0);
    now = 1;
    ledger.charge('alice', usage(700), 'idle');
    for (let i = 2; i < MAX; i++) {
      now = i;
      ledger.charge(i % 2 ? 'alice' : 'bob', usage(10), `t${i}`);
    }
    expect(ledger.snapshot().threads).toHaveLength(MAX - 1); // every thread but "busy" (nothing settled)
    now = MAX;
    ledger.charge('carol', usage(10), 'new');
    // The idle one went, and only it; the one in flight kept its reservation.
    const threads = ledger.snapshot().threads;
    expect(threads.find((t) => t.thread === 'idle')).toBeUndefined();
    expect(threads.find((t) => t.thread === 'new')).toMatchObject({ caller: 'carol', tokens: 10 });
    expect(threads.find((t) => t.thread === 't2')).toMatchObject({ caller: 'bob', tokens: 10 });
    expect(threads).toHaveLength(MAX - 1);
    expect(ledger.headroom('alice', 'busy').tokens).toBe(500);
    // Its spend is forgotten: the whole thread budget again (asking makes it a thread again, so t2, the
    // oldest idle one now, goes).
    expect(ledger.headroom('alice', 'idle').tokens).toBe(1000);
    expect(ledger.snapshot().threads.find((t) => t.thread === 't2')).toBeUndefined();
  });

  it('drops the threads whose window is over before any that is still open', () => {
    let now = 0;
    const ledger = new CallerLedger(limits, () => now, { thread });
    for (let i = 0; i < MAX; i++) ledger.charge('alice', usage(10), `t${i}`);
    now = HOUR / 2;
    ledger.charge('bob', usage(10), 'open');
    // Past the first threads' window: all of them go at the next new thread, and the open one stays.
    now = HOUR + 1;
    ledger.charge('carol', usage(10), 'later');
    const threads = ledger.snapshot().threads;
    expect(threads.map((t) => t.thread).sort()).toEqual(['later', 'open']);
    expect(ledger.headroom('bob', 'open').tokens).toBe(990);
  });
});
