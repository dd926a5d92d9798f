/** Epoch milliseconds with sub-millisecond precision: the same clock the scripted model logs with. */
export const now = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Full GC (the worker runs with --expose-gc), twice so weak/finalized objects go too. */
export async function collect(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('benchmark workers need --expose-gc (they are forked with it by bench/run.ts)');
  gc();
  await sleep(10);
  gc();
}

/** Progress lines on stderr when BENCH_VERBOSE is set. */
export function progress(message: string): void {
  if (process.env.BENCH_VERBOSE) process.stderr.write(`  · ${message}\n`);
}

/** One line for a failed run: the error and its cause (fetch errors hide the real one there). */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.name}: ${err.message}${cause}`.slice(0, 300);
}
