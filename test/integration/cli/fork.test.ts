/** `parley fork RUN [--from CHECKPOINT]` as a user runs it: bin/parley.js against the `parley serve` of the data dir. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphEvent } from '../../../src/graph/run/events.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { runParley } from '../../support/parley-cli.ts';
import { NO_HOME } from '../../support/home.ts';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';
import { useServeProcesses } from '../../support/serve-process.ts';

const ENV = { PARLEY_HOME: NO_HOME, PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG };
const processes = useServeProcesses('parley-fork', ENV);

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

function parley(args: string[], dataDir: string) {
  return runParley(args, { ...ENV, PARLEY_DATA_DIR: dataDir });
}

describe('parley fork', () => {
  it('starts a new run from a checkpoint in the service, shown live, and says why it cannot', async () => {
    const dataDir = processes.tempDataDir();
    const server = await processes.serve(dataDir);
    const res = await postJson(`${server.url}/stream`, {
      query: 'Draft the release notes [[steps:3]] [[chain]]',
      mode: 'orchestrate',
    });
    const events = (await readAll(res)).map((m) => m.json as GraphEvent);
    const runId = events[0]!.runId;
    const list = (await (await fetch(`${server.url}/api/runs/${runId}/checkpoints`)).json()) as {
      checkpoints: { id: string; kind: string; stepsFinished: number }[];
    };
    const afterTwo = list.checkpoints.find((c) => c.kind === 'step' && c.stepsFinished === 2)!;

    const forked = parley(['fork', runId, '--from', afterTwo.id], dataDir);
    expect(await forked.exit, forked.err()).toBe(0);
    expect(forked.err()).toContain(`forked from ${runId} at ${afterTwo.id}`);
    expect(forked.err()).toMatch(/✓ s3 succeeded/);
    expect(forked.err()).not.toMatch(/✓ s1 succeeded/);
    expect(forked.out()).toContain('release notes');

    const last = parley(['fork', runId], dataDir);
    expect(await last.exit, last.err()).toBe(0);
    expect(last.err()).toContain(`forking from the last checkpoint, ${list.checkpoints.at(-1)!.id}`);

    const unknown = parley(['fork', runId, '--from', 'cp-99999'], dataDir);
    expect(await unknown.exit).toBe(1);
    expect(unknown.err()).toContain('the Parley service refused the fork (400: run');
    const usage = parley(['fork'], dataDir);
    expect(await usage.exit).toBe(2);
    expect(usage.err()).toContain('usage: parley fork RUN_ID [--from CHECKPOINT_ID]');
  }, 120_000);
});
