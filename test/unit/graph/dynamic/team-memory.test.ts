import { describe, expect, it } from 'vitest';
import { TEAM_MEMORY_LIMITS, appendKey, emptyTeamMemory, writeKey } from '../../../../src/graph/dynamic/team-memory.ts';

describe('team memory', () => {
  it('writes, appends to a list, and turns a single value into a list on append', () => {
    const m = emptyTeamMemory();
    expect(writeKey(m, 'plan', 'three parts')).toBeUndefined();
    expect(appendKey(m, 'plan', 'a fourth')).toBeUndefined();
    expect(appendKey(m, 'findings', { who: 'w1' })).toBeUndefined();
    expect(m.values.get('plan')).toEqual(['three parts', 'a fourth']);
    expect(m.values.get('findings')).toEqual([{ who: 'w1' }]);
  });

  it('refuses what would break its bounds and stays unchanged', () => {
    const m = emptyTeamMemory();
    expect(writeKey(m, ' ', 1)).toBe('the key is empty');
    expect(writeKey(m, 'k'.repeat(TEAM_MEMORY_LIMITS.keyChars + 1), 1)).toMatch(/keys are at most/);
    expect(writeKey(m, 'big', 'x'.repeat(TEAM_MEMORY_LIMITS.valueChars))).toMatch(/a value is at most/);
    for (let i = 0; i < TEAM_MEMORY_LIMITS.keys; i++) expect(writeKey(m, `k${i}`, i)).toBeUndefined();
    const chars = m.chars;
    expect(writeKey(m, 'one-more', 1)).toMatch(/at most 200 keys/);
    expect(writeKey(m, 'k1', 'replaced')).toBeUndefined();
    expect(m.values.size).toBe(TEAM_MEMORY_LIMITS.keys);
    expect(m.chars).toBe(chars - 1 + JSON.stringify('replaced').length);
  });
});
