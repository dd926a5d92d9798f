/**
 * globalSetup of the projects whose tests launch bin/parley.js (vitest.config.ts: cli, e2e): builds dist/ once,
 * before any of their files start, when src/ changed since the last build. Each file's own ensureBuilt()
 * (test/support/build.ts) then finds it current; without this the first files of a run each waited on the
 * build lock while one of them built.
 */
import { ensureBuilt } from './build.ts';

export default function setup(): void {
  ensureBuilt();
}
