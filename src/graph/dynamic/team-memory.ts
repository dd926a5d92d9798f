/**
 * A dynamic run's team memory: keys every agent of the run reads and writes. Plain data on one event
 * loop, so each operation is atomic; bounded so a looping agent cannot grow it without end.
 */

export const TEAM_MEMORY_LIMITS = { keys: 200, keyChars: 100, valueChars: 16_000, totalChars: 1_000_000 };

export interface TeamMemory {
  values: Map<string, unknown>;
  chars: number;
}

export const emptyTeamMemory = (): TeamMemory => ({ values: new Map(), chars: 0 });

const sizeOf = (value: unknown): number => (value === undefined ? 0 : JSON.stringify(value).length);

/** Why the key is not acceptable, or undefined. */
function badKey(key: string): string | undefined {
  if (key.trim() === '') return 'the key is empty';
  if (key.length > TEAM_MEMORY_LIMITS.keyChars) return `keys are at most ${TEAM_MEMORY_LIMITS.keyChars} characters`;
  return undefined;
}

/** Sets key to value; returns why not (the memory is unchanged then). */
export function writeKey(memory: TeamMemory, key: string, value: unknown): string | undefined {
  const problem = badKey(key);
  if (problem) return problem;
  const size = sizeOf(value);
  if (size > TEAM_MEMORY_LIMITS.valueChars)
    return `a value is at most ${TEAM_MEMORY_LIMITS.valueChars} characters of JSON (this one is ${size})`;
  const had = memory.values.has(key);
  if (!had && memory.values.size >= TEAM_MEMORY_LIMITS.keys)
    return `the team memory holds at most ${TEAM_MEMORY_LIMITS.keys} keys`;
  const chars = memory.chars - sizeOf(memory.values.get(key)) + size;
  if (chars > TEAM_MEMORY_LIMITS.totalChars)
    return `the team memory holds at most ${TEAM_MEMORY_LIMITS.totalChars} characters`;
  memory.values.set(key, value);
  memory.chars = chars;
  return undefined;
}

/** Appends item to the list at key (a missing key starts a list; a value that is not a list becomes its first item). */
export function appendKey(memory: TeamMemory, key: string, item: unknown): string | undefined {
  const current = memory.values.get(key);
  const list = current === undefined ? [] : Array.isArray(current) ? current : [current];
  return writeKey(memory, key, [...list, item]);
}
