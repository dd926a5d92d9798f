/** `parley init [--force]`: what it wrote and kept, one line each, on stdout. */
import { initHome } from '../home/init.ts';
import { resolveParleyPaths } from '../home/paths.ts';

export function runInit(args: string[]): number {
  const unknown = args.filter((a) => a !== '--force');
  if (unknown.length > 0) {
    process.stderr.write(`parley init: unknown argument ${JSON.stringify(unknown[0])} (only --force)\n`);
    return 2;
  }
  const { home, homeFrom } = resolveParleyPaths();
  const result = initHome(home, { force: args.includes('--force') });
  const lines = [
    `Parley home: ${home}${homeFrom === 'PARLEY_HOME' ? ' (PARLEY_HOME)' : ''}`,
    ...result.written.map((p) => `wrote ${p}`),
    ...result.kept.map((p) => `kept ${p} (it exists; --force overwrites it)`),
    result.written.length > 0
      ? 'Edit them; Parley uses the copies in the home instead of the shipped files from its next start (docs/configuration.md).'
      : 'Nothing written: the home already has every file.',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
