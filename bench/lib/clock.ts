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

/** One line for a failed run: the error and its causes (fetch hides the real one two levels down). */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 5; depth++) {
    if (e instanceof Error) {
      const code = (e as { code?: unknown }).code;
      parts.push(`${e.name}: ${e.message}${code ? ` (${String(code)})` : ''}`);
      e = e.cause;
    } else {
      parts.push(String(e));
      break;
    }
  }
  return parts.join(' ← ').slice(0, 400);
}
