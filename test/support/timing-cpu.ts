/**
 * Setup file added when PARLEY_TEST_TIMING is set (vitest.config.ts, `npm run test:timing`): the CPU a test
 * file cost its worker, attached to the file's meta for test/support/timing-reporter.ts. Worker CPU
 * (user + sys) from before the file is imported to its afterAll, plus the CPU of child processes the worker reaped meanwhile
 * (a `parley serve` it launched and waited for; /proc, Linux only). Daemons such as Postgres are not counted.
 */
import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    cpuMs?: number;
    childCpuMs?: number;
  }
}

function reapedChildrenMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime, USER_HZ 100
  } catch {
    return 0;
  }
}

// A setup file runs before its test file is imported, so this counts the import too.
const cpu = process.cpuUsage();
const children = reapedChildrenMs();

// vitest reads the first parameter as fixtures and wants a destructuring pattern; none is needed here.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, file) => {
  const used = process.cpuUsage(cpu);
  file.meta.cpuMs = Math.round((used.user + used.system) / 1000);
  file.meta.childCpuMs = reapedChildrenMs() - children;
});
