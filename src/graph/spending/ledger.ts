/**
 * CallerLedger: what each caller (API key) and each of its threads has spent within the current
 * budget window, what calls in flight have reserved against it, and the caller's run starts in the
 * last minute (its rate limit). One per engine, shared by every run and by passthrough calls, so no
 * path spends outside it. Spend survives a restart through a small file in the data dir
 * (ledger-file.ts), written after each run and on close.
 */
import type { Config } from '../../config.ts';
import type { ModelUsage } from '../../llm/types.ts';
import { BudgetExceededError } from './budget-error.ts';

export type CallerLimits = Config['budget']['caller'];
export type ThreadLimits = Config['budget']['thread'];

/** One window of spend: settled usage plus what calls in flight have reserved (never persisted). */
export interface Spend {
  windowStart: number;
  tokens: number;
  costUsd: number;
  reservedTokens: number;
  reservedCostUsd: number;
}

/** What the ledger file holds: settled spend per caller and per (caller, thread), within its window. */
export interface LedgerSnapshot {
  callers: Record<string, { windowStart: number; tokens: number; costUsd: number }>;
  threads: { caller: string; thread: string; windowStart: number; tokens: number; costUsd: number }[];
}

/**
 * What one replica tells the others its ledger saw (docs/deployment.md, "Replicas"): a run start (the
 * rate limit) and settled spend. Reservations stay local: a replica's calls in flight are the only
 * spend the others do not see, which bounds a shared budget's overshoot by them.
 */
export type LedgerDelta =
  | { type: 'start'; caller: string; at: number }
  | { type: 'charge'; caller: string; thread?: string; tokens: number; costUsd: number };

/** Entries kept per map; beyond it expired windows go first, then the oldest windows. */
const MAX_ENTRIES = 10_000;
const MINUTE = 60_000;

const UNLIMITED_THREADS: ThreadLimits = { tokens: Number.POSITIVE_INFINITY, costUsd: Number.POSITIVE_INFINITY };

export class CallerLedger {
  readonly #callers = new Map<string, Spend & { starts: number[] }>();
  /**
   * Each caller's threads (caller → thread id → spend): two callers naming the same thread id never share a
   * budget. Nested so that a thread is keyed by its id itself: a `caller\nthread` key and the two ids copied
   * into each entry were ~75 of the ~315 bytes a thread of a UUID id cost for 24 h, up to 10,000 threads
   * (every run of a new conversation starts one; docs/performance.md, 2026-12-02).
   */
  readonly #threads = new Map<string, Map<string, Spend>>();
  /** Threads held, over every caller (MAX_ENTRIES bounds it). */
  #threadCount = 0;
  readonly #limits: CallerLimits;
  readonly #threadLimits: ThreadLimits;
  readonly #now: () => number;
  /** Replicas: called with every start and charge, for the other replicas' ledgers. */
  share?: (delta: LedgerDelta) => void;

  constructor(
    limits: CallerLimits,
    now: () => number,
    options: { thread?: ThreadLimits; restore?: LedgerSnapshot } = {},
  ) {
    this.#limits = limits;
    this.#threadLimits = options.thread ?? UNLIMITED_THREADS;
    this.#now = now;
    if (options.restore) this.#restore(options.restore);
  }

  /** Counts a run start; throws BudgetExceededError (with retryAfterMs) when over the per-minute limit or a spend limit. */
  admitRun(callerId: string, threadId?: string): void {
    const now = this.#now();
    const e = this.#caller(callerId);
    while (e.starts.length && now - e.starts[0]! >= MINUTE) e.starts.shift();
    if (e.starts.length >= this.#limits.runsPerMinute) {
      const retryAfterMs = Math.max(1, e.starts[0]! + MINUTE - now);
      throw new BudgetExceededError(
        `rate limit: caller "${callerId}" may start ${this.#limits.runsPerMinute} runs per minute; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        retryAfterMs,
      );
    }
    this.checkSpend(callerId, 0, 0, threadId);
    e.starts.push(now);
    this.share?.({ type: 'start', caller: callerId, at: now });
  }

  /** Another replica's start or spend, counted here as if it were this one's. */
  apply(delta: LedgerDelta): void {
    if (delta.type === 'start') {
      const starts = this.#caller(delta.caller).starts;
      starts.push(delta.at);
      starts.sort((a, b) => a - b);
      return;
    }
    for (const e of this.#entries(delta.caller, delta.thread)) {
      e.tokens += delta.tokens;
      e.costUsd += delta.costUsd;
    }
  }

  /** Throws when the window spend (settled and reserved) plus `tokens` and `costUsd` would exceed the caller's or the thread's limits. */
  checkSpend(callerId: string, tokens: number, costUsd = 0, threadId?: string): void {
    const c = this.#caller(callerId);
    check(
      c,
      this.#limits,
      tokens,
      costUsd,
      this.#retryAfter(c),
      `caller token budget: "${callerId}"`,
      `caller cost budget: "${callerId}"`,
    );
    if (threadId === undefined) return;
    const t = this.#thread(callerId, threadId);
    check(
      t,
      this.#threadLimits,
      tokens,
      costUsd,
      this.#retryAfter(t),
      `thread token budget: thread "${threadId}"`,
      `thread cost budget: thread "${threadId}"`,
    );
  }

  /** Tokens and cost still free for the caller (and thread) in this window, in-flight reservations deducted. */
  headroom(callerId: string, threadId?: string): { tokens: number; costUsd: number } {
    const c = this.#caller(callerId);
    let tokens = this.#limits.tokens - c.tokens - c.reservedTokens;
    let costUsd = this.#limits.costUsd - c.costUsd - c.reservedCostUsd;
    if (threadId !== undefined) {
      const t = this.#thread(callerId, threadId);
      tokens = Math.min(tokens, this.#threadLimits.tokens - t.tokens - t.reservedTokens);
      costUsd = Math.min(costUsd, this.#threadLimits.costUsd - t.costUsd - t.reservedCostUsd);
    }
    return { tokens, costUsd };
  }

  /** Holds `tokens` and `costUsd` for a call in flight (after checkSpend); release() gives them back. */
  reserve(callerId: string, threadId: string | undefined, tokens: number, costUsd: number): void {
    for (const e of this.#entries(callerId, threadId)) {
      e.reservedTokens += tokens;
      e.reservedCostUsd += costUsd;
    }
  }

  release(callerId: string, threadId: string | undefined, tokens: number, costUsd: number): void {
    for (const e of this.#entries(callerId, threadId)) {
      e.reservedTokens = Math.max(0, e.reservedTokens - tokens);
      e.reservedCostUsd = Math.max(0, e.reservedCostUsd - costUsd);
    }
  }

  charge(callerId: string, usage: ModelUsage, threadId?: string): void {
    const tokens = usage.inputTokens + usage.outputTokens;
    const costUsd = usage.costUsd ?? 0;
    for (const e of this.#entries(callerId, threadId)) {
      e.tokens += tokens;
      e.costUsd += costUsd;
    }
    this.share?.({
      type: 'charge',
      caller: callerId,
      ...(threadId !== undefined ? { thread: threadId } : {}),
      tokens,
      costUsd,
    });
  }

  /** The settled spend of every window still open: what the ledger file keeps across a restart. */
  snapshot(): LedgerSnapshot {
    const now = this.#now();
    const open = (e: Spend) => now - e.windowStart < this.#limits.windowMs && (e.tokens > 0 || e.costUsd > 0);
    const callers: LedgerSnapshot['callers'] = {};
    for (const [id, e] of this.#callers)
      if (open(e)) callers[id] = { windowStart: e.windowStart, tokens: e.tokens, costUsd: e.costUsd };
    const threads: LedgerSnapshot['threads'] = [];
    for (const [caller, own] of this.#threads)
      for (const [thread, e] of own)
        if (open(e)) threads.push({ caller, thread, windowStart: e.windowStart, tokens: e.tokens, costUsd: e.costUsd });
    return { callers, threads };
  }

  #restore(s: LedgerSnapshot): void {
    const now = this.#now();
    const fresh = (w: number) => now - w < this.#limits.windowMs && w <= now;
    for (const [id, e] of Object.entries(s.callers)) {
      if (fresh(e.windowStart)) this.#callers.set(id, { ...e, reservedTokens: 0, reservedCostUsd: 0, starts: [] });
    }
    for (const e of s.threads) {
      if (fresh(e.windowStart))
        this.#addThread(e.caller, e.thread, {
          windowStart: e.windowStart,
          tokens: e.tokens,
          costUsd: e.costUsd,
          reservedTokens: 0,
          reservedCostUsd: 0,
        });
    }
  }

  #entries(callerId: string, threadId: string | undefined): Spend[] {
    return threadId === undefined
      ? [this.#caller(callerId)]
      : [this.#caller(callerId), this.#thread(callerId, threadId)];
  }

  #retryAfter(e: Spend): number {
    return Math.max(1, e.windowStart + this.#limits.windowMs - this.#now());
  }

  #caller(id: string): Spend & { starts: number[] } {
    const now = this.#now();
    let e = this.#callers.get(id);
    if (e) rollOver(e, now, this.#limits.windowMs);
    else {
      if (this.#callers.size >= MAX_ENTRIES)
        this.#prune(this.#callers, now, (c) => now - (c.starts.at(-1) ?? 0) >= MINUTE);
      e = { windowStart: now, tokens: 0, costUsd: 0, reservedTokens: 0, reservedCostUsd: 0, starts: [] };
      this.#callers.set(id, e);
    }
    return e;
  }

  #thread(callerId: string, threadId: string): Spend {
    const now = this.#now();
    let e = this.#threads.get(callerId)?.get(threadId);
    if (e) rollOver(e, now, this.#limits.windowMs);
    else {
      if (this.#threadCount >= MAX_ENTRIES) this.#pruneThreads(now);
      e = { windowStart: now, tokens: 0, costUsd: 0, reservedTokens: 0, reservedCostUsd: 0 };
      this.#addThread(callerId, threadId, e);
    }
    return e;
  }

  #addThread(callerId: string, threadId: string, e: Spend): void {
    let own = this.#threads.get(callerId);
    if (!own) this.#threads.set(callerId, (own = new Map()));
    if (!own.has(threadId)) this.#threadCount++;
    own.set(threadId, e);
  }

  #dropThread(callerId: string, own: Map<string, Spend>, threadId: string): void {
    if (!own.delete(threadId)) return;
    this.#threadCount--;
    if (own.size === 0) this.#threads.delete(callerId);
  }

  /** #prune's rule for the threads of every caller: idle expired windows first, then the oldest idle ones. */
  #pruneThreads(now: number): void {
    const quiet = (e: Spend) => e.reservedTokens === 0 && e.reservedCostUsd === 0;
    for (const [caller, own] of this.#threads)
      for (const [thread, e] of own)
        if (quiet(e) && now - e.windowStart >= this.#limits.windowMs) this.#dropThread(caller, own, thread);
    if (this.#threadCount < MAX_ENTRIES) return;
    const oldest: { caller: string; own: Map<string, Spend>; thread: string; windowStart: number }[] = [];
    for (const [caller, own] of this.#threads)
      for (const [thread, e] of own) if (quiet(e)) oldest.push({ caller, own, thread, windowStart: e.windowStart });
    oldest.sort((a, b) => a.windowStart - b.windowStart);
    for (const o of oldest.slice(0, this.#threadCount - MAX_ENTRIES + 1)) this.#dropThread(o.caller, o.own, o.thread);
  }

  /**
   * Drops idle entries whose window is over; if the map is still full, the oldest windows with
   * nothing in flight go (their spend is forgotten: the caller's own budget still holds).
   */
  #prune<E extends Spend>(map: Map<string, E>, now: number, idle: (e: E) => boolean): void {
    const quiet = (e: E) => e.reservedTokens === 0 && e.reservedCostUsd === 0 && idle(e);
    for (const [k, e] of map) if (quiet(e) && now - e.windowStart >= this.#limits.windowMs) map.delete(k);
    if (map.size < MAX_ENTRIES) return;
    const oldest = [...map].filter(([, e]) => quiet(e)).sort(([, a], [, b]) => a.windowStart - b.windowStart);
    for (const [k] of oldest.slice(0, map.size - MAX_ENTRIES + 1)) map.delete(k);
  }
}

function rollOver(e: Spend, now: number, windowMs: number): void {
  if (now - e.windowStart < windowMs) return;
  e.windowStart = now;
  e.tokens = 0;
  e.costUsd = 0;
}

function check(
  e: Spend,
  limits: { tokens: number; costUsd: number },
  tokens: number,
  costUsd: number,
  retryAfterMs: number,
  tokenWho: string,
  costWho: string,
): void {
  const usedTokens = e.tokens + e.reservedTokens;
  if (usedTokens + tokens > limits.tokens) {
    throw new BudgetExceededError(
      `${tokenWho} has used ${usedTokens} of ${limits.tokens} tokens in this window`,
      retryAfterMs,
    );
  }
  const spent = e.costUsd + e.reservedCostUsd;
  if (spent + costUsd > limits.costUsd || spent >= limits.costUsd) {
    throw new BudgetExceededError(
      `${costWho} has spent $${spent.toFixed(4)} of $${limits.costUsd} in this window`,
      retryAfterMs,
    );
  }
}
