/**
 * The caller ledger's file in the data dir (budget-ledger.json): settled spend per caller and per
 * thread within their open windows, so a restart does not hand every caller a fresh budget. Written
 * whole, to a temporary file then renamed over the old one, so a crash leaves the old or the new
 * file, never half of one. Bounded by the ledger's own entry cap.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../../log.ts';
import type { LedgerSnapshot } from './ledger.ts';

const spend = { windowStart: z.number(), tokens: z.number().nonnegative(), costUsd: z.number().nonnegative() };
const LedgerFileSchema = z.object({
  version: z.literal(1),
  callers: z.record(z.string(), z.object(spend)),
  threads: z.array(z.object({ caller: z.string(), thread: z.string(), ...spend })),
});

/** The ledger file of a data dir; undefined for ":memory:" (totals then live as long as the process). */
export function ledgerPath(dataDir: string): string | undefined {
  return dataDir === ':memory:' ? undefined : join(resolve(dataDir), 'budget-ledger.json');
}

/** Reads the file at start-up; a missing file is an empty ledger, an unreadable one is logged and ignored. */
export function readLedgerFile(path: string, logger: Logger): LedgerSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    logger.error('budget ledger: cannot read the file; caller and thread totals start from zero', {
      path,
      error: String(err),
    });
    return undefined;
  }
  try {
    const parsed = LedgerFileSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { callers: parsed.data.callers, threads: parsed.data.threads };
    logger.error('budget ledger: the file is not a ledger; caller and thread totals start from zero', {
      path,
      error: parsed.error.issues[0]?.message,
    });
  } catch (err) {
    logger.error('budget ledger: the file is not JSON; caller and thread totals start from zero', {
      path,
      error: String(err),
    });
  }
  return undefined;
}

/** Writes snapshots one at a time (the latest wins), each atomically: temp file, then rename. */
export function ledgerWriter(path: string, logger: Logger): (snapshot: LedgerSnapshot) => Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  let chain: Promise<void> = Promise.resolve();
  return (snapshot) =>
    (chain = chain.then(async () => {
      try {
        await writeFile(temp, JSON.stringify({ version: 1, ...snapshot }));
        await rename(temp, path);
      } catch (err) {
        logger.error('budget ledger: writing the file failed', { path, error: String(err) });
      }
    }));
}
