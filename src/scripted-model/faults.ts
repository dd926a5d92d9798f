/**
 * Which requests fail and how: scripted rules first (the next N calls matching a role or text),
 * then a [[fault:…]] directive in the last user message, then a seeded random rate.
 */
export const FAULT_KINDS = ['429', '500', 'hang', 'malformed', 'schema'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRule {
  /** Matches the x-parley-role header. */
  role?: string;
  /** Matches when the last user message contains this text. */
  contains?: string;
  fault: FaultKind;
  /** How many matching calls fail (default 1). */
  times?: number;
}

export interface FaultPlanOptions {
  rules?: FaultRule[];
  rate?: number;
  kinds?: FaultKind[];
  seed?: number;
}

export const isFaultKind = (v: unknown): v is FaultKind =>
  typeof v === 'string' && (FAULT_KINDS as readonly string[]).includes(v);

/** Validates rules from JSON (POST /_scripted/faults, SCRIPTED_FAULT_RULES); throws a readable message. */
export function parseFaultRules(value: unknown): FaultRule[] {
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object' && Array.isArray((value as { faults?: unknown }).faults)
      ? (value as { faults: unknown[] }).faults
      : undefined;
  if (!list) throw new Error('expected an array of fault rules or { "faults": [...] }');
  return list.map((r, i) => {
    if (!r || typeof r !== 'object') throw new Error(`rule ${i}: expected an object`);
    const { role, contains, fault, times } = r as Record<string, unknown>;
    if (!isFaultKind(fault)) throw new Error(`rule ${i}: fault must be one of ${FAULT_KINDS.join(', ')}`);
    if (role !== undefined && typeof role !== 'string') throw new Error(`rule ${i}: role must be a string`);
    if (contains !== undefined && typeof contains !== 'string') throw new Error(`rule ${i}: contains must be a string`);
    if (times !== undefined && !(Number.isInteger(times) && (times as number) > 0))
      throw new Error(`rule ${i}: times must be a positive integer`);
    return { role, contains, fault, times: (times as number | undefined) ?? 1 };
  });
}

/** mulberry32: a tiny seeded PRNG so a fault rate gives the same sequence on every run. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultPlan {
  private rules: (FaultRule & { times: number })[] = [];
  private readonly random: () => number;
  private readonly rate: number;
  private readonly kinds: FaultKind[];

  constructor(options: FaultPlanOptions = {}) {
    this.setRules(options.rules ?? []);
    this.rate = options.rate ?? 0;
    this.kinds = options.kinds?.length ? options.kinds : ['429', '500'];
    this.random = seededRandom(options.seed ?? 1);
  }

  setRules(rules: FaultRule[]): void {
    this.rules = rules.map((r) => ({ ...r, times: r.times ?? 1 }));
  }

  /** The fault for this request, consuming one use of the matching rule. */
  pick(role: string | undefined, lastUserText: string, directive: string | undefined): FaultKind | undefined {
    const rule = this.rules.find(
      (r) =>
        r.times > 0 &&
        (r.role === undefined || r.role === role) &&
        (r.contains === undefined || lastUserText.includes(r.contains)),
    );
    if (rule) {
      rule.times--;
      return rule.fault;
    }
    if (isFaultKind(directive)) return directive;
    if (this.rate > 0 && this.random() < this.rate) return this.kinds[Math.floor(this.random() * this.kinds.length)];
    return undefined;
  }
}
