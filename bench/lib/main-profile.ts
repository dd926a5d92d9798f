/**
 * The main thread's V8 CPU profile over a measured stretch only (not start-up, not the warm-up): started
 * here when a file is given, written there by the returned stop(). `npx tsx bench/cpu-profile.ts FILE`
 * says which part of Parley the samples went to.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

export async function startMainProfile(file: string | undefined): Promise<() => Promise<void>> {
  if (!file) return async () => undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}
