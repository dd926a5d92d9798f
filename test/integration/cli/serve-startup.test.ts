/**
 * `parley serve` listens first and ingests after (docs/knowledge.md, "Ingestion"): on a fresh data dir a
 * request that lists the specialists right after the listening line waits for the ingestion and sees the
 * MCP servers' specialists with their tools; on a restart the last ingestion's records answer at once.
 * The real process (bin/parley.js) with the shipped mcp_config.json and specialists.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { useServeProcesses } from '../../support/serve-process.ts';

const { serve, tempDataDir } = useServeProcesses('parley-serve-startup');

beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

interface Listed {
  specialists: { id: string; kind: string; tools: string[]; available: boolean }[];
}

const specialists = async (url: string) =>
  ((await (await fetch(`${url}/api/specialists`)).json()) as Listed).specialists;

describe('parley serve start-up', () => {
  it('listens before discovering the MCP servers; a first request needing them waits for the discovery', async () => {
    const dataDir = tempDataDir();
    const first = await serve(dataDir);
    // Asked as soon as it listens: the fresh graph knows no MCP server yet, so the read waits.
    const listed = await specialists(first.url);
    const log = first.log();
    expect(log.indexOf('listening on')).toBeGreaterThan(-1);
    expect(log.indexOf('knowledge ingestion finished')).toBeGreaterThan(log.indexOf('listening on'));
    const mcp = listed.filter((s) => s.kind === 'mcp');
    expect(mcp.map((s) => s.id).sort()).toEqual(['filesystem', 'memory']);
    expect(mcp.find((s) => s.id === 'filesystem')?.tools).toContain('filesystem/write_file');
    expect(listed.filter((s) => s.available)).toHaveLength(12);

    // A restart on the same data dir: the graph's last discovered lists answer the first request.
    first.child.kill('SIGTERM');
    expect((await first.exit).code).toBe(0);
    const second = await serve(dataDir);
    expect((await specialists(second.url)).filter((s) => s.available)).toHaveLength(12);
  }, 120_000);
});
