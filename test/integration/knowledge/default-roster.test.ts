/**
 * What Parley ships: the real mcp_config.json (reference filesystem and memory servers, spawned
 * with node) and the specialists/ roster, ingested into Kuzu in memory.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import { ingestAll } from '../../../src/knowledge/ingest/ingest.ts';
import { configRequiresApproval, loadMcpConfig } from '../../../src/tools/mcp-config.ts';

describe('the shipped roster and MCP servers', () => {
  it('ingest with real tools, including a write tool that needs approval', async () => {
    // Parley gives the config its absolute data folder as ${PARLEY_DATA_DIR}, with a workspace in it.
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-roster-'));
    mkdirSync(join(dataDir, 'workspace'));
    const store = await openKuzuStore({ path: ':memory:' });
    try {
      const mcpConfig = loadMcpConfig('mcp_config.json', { PARLEY_DATA_DIR: dataDir });
      const report = await ingestAll({
        store,
        mcpConfig,
        skillsDirs: ['specialists'],
        a2aPeers: [],
        discoveryTimeoutMs: 30_000,
      });
      expect(report.unavailable).toEqual([]);
      expect(report.skippedFiles).toEqual([]);

      const write = await store.getTool('filesystem/write_file');
      expect(write?.annotations.destructiveHint).toBe(true);
      expect(write?.inputSchema).toMatchObject({
        type: 'object',
        required: expect.arrayContaining(['path', 'content']),
      });
      const fs = mcpConfig.servers.find((s) => s.name === 'filesystem')!;
      expect(configRequiresApproval(fs, 'write_file')).toBe(true);
      expect((await store.listTools('memory')).map((t) => t.name)).toContain('search_nodes');

      // Roster tool patterns resolved against the live tools.
      const ts = await store.getSpecialist('typescript-programmer');
      expect(ts?.tools).toContain('filesystem/write_file');
      expect((await store.getSpecialist('researcher'))?.tools).toEqual(
        expect.arrayContaining(['memory/search_nodes', 'filesystem/read_text_file']),
      );
      for (const s of await store.listSpecialists({ kind: 'prompt' })) {
        for (const t of s.tools) expect(await store.getTool(t), `${s.id} uses ${t}`).toBeDefined();
      }

      // Retrieval over the real roster.
      const top = async (q: string) => (await store.retrieveSpecialists(q, 3))[0]?.specialist.id;
      expect(await top('Design a Postgres schema with indexes and a migration')).toBe('database');
      expect(await top('Write a Dockerfile and a Kubernetes deployment with CI')).toBe('devops');
      expect(await top('Find the root cause of this stack trace error')).toBe('debugger');
      expect(await top('Review the login code for security vulnerabilities')).toBe('security');
      expect(await top('Write pytest tests for the python data script')).toBe('python-programmer');
      expect(await top('Update the README documentation')).toBe('writer');

      // A task that writes a file: the filesystem server first, ahead of the memory server (issue 43 §4).
      const ranked = async (q: string) => (await store.retrieveSpecialists(q, 7)).map((c) => c.specialist.id);
      for (const q of [
        'Write an onboarding checklist for new engineers and save it to onboarding.md',
        'Create a file notes.txt with a summary of the meeting',
        'Save the team design to a file called team.md',
      ]) {
        const ids = await ranked(q);
        // By text alone it was first, fifth and fifth (below the memory server for the last two).
        expect(ids[0], q).toBe('filesystem');
      }
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
