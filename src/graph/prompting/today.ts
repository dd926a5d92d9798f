/**
 * The current date, as every role that reasons about the world is told it: a model otherwise answers
 * "latest …", "this year" or date arithmetic from where its training data ends. One line at the very
 * end of a system prompt, day-grained: everything before it stays a stable prefix for prompt caching,
 * and the line itself changes once a day. The engine's clock (EngineDeps.now) gives the instant, so
 * tests and the rendered prompt tour fix it; PARLEY_TIMEZONE gives the zone (UTC by default).
 */

/** What a note needs: the engine's clock and its configured zone (EngineContext has both). */
export interface DateSource {
  now: () => number;
  config: { engine: { timeZone: string } };
}

/** One formatter per zone: building one costs more than the formatting (every model call asks). */
const formatters = new Map<string, Intl.DateTimeFormat>();
const formatterOf = (timeZone: string) => {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'long',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
};

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "Thursday 2026-11-26" in `timeZone`: the ISO form a model reads unambiguously, with its weekday. */
export function calendarDate(at: number, timeZone: string): string {
  // UTC, the default, needs no formatter: building one pages in ~6 MB of Node's ICU data for good
  // (docs/performance.md, Startup and footprint).
  if (timeZone === 'UTC') {
    const day = new Date(at);
    return `${WEEKDAYS[day.getUTCDay()]} ${day.toISOString().slice(0, 10)}`;
  }
  const parts = Object.fromEntries(
    formatterOf(timeZone)
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day}`;
}

/** The paragraph a system prompt ends with: today's date, its zone, and what it is for. */
export function todayNote(at: number, timeZone: string): string {
  return `\n\nToday is ${calendarDate(at, timeZone)} (time zone ${timeZone}). What is current, latest or recent, and any date arithmetic ("last year", "in 3 weeks", an age), is relative to this date, not to when your training data ends.`;
}

/** todayNote at the engine's current instant. */
export const todayNoteOf = (source: DateSource) => todayNote(source.now(), source.config.engine.timeZone);
