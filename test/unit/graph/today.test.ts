/** The date line's UTC path (no Intl formatter) says what Intl says, every day of several years. */
import { describe, expect, it } from 'vitest';
import { calendarDate } from '../../../src/graph/prompting/today.ts';

const viaIntl = (at: number) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: 'UTC',
      weekday: 'long',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day}`;
};

describe('calendarDate in UTC', () => {
  it('matches Intl on every day from 1999 to 2033, at the first and the last millisecond of each', () => {
    const day = 86_400_000;
    const mismatches: string[] = [];
    for (let t = Date.UTC(1999, 0, 1); t < Date.UTC(2034, 0, 1); t += day)
      for (const at of [t, t + day - 1])
        if (calendarDate(at, 'UTC') !== viaIntl(at)) mismatches.push(new Date(at).toISOString());
    expect(mismatches).toEqual([]);
    expect(calendarDate(Date.UTC(2026, 10, 26, 23, 59), 'UTC')).toBe('Thursday 2026-11-26');
  });

  it('still uses the zone for any other zone', () => {
    expect(calendarDate(Date.UTC(2026, 10, 26, 23, 30), 'Europe/Paris')).toBe('Friday 2026-11-27');
  });
});
