/**
 * `parley mcp` as an editor launches it, with a 2026-07-28 client (the SDK's, pinned to the revision): the
 * bridge forwards each stdio request to the service's /mcp (docs/service.md), where the stateless entry
 * answers it; no initialize, no session. The client asks for a file write through the shipped filesystem
 * server, the approval comes back as `input_required`, its elicitation handler accepts, the SDK retries
 * through the bridge and gets the result. The service the bridge started is stopped after the test.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { acceptingElicitation, mcpClient, structured, type AskResult } from '../../support/protocols/mcp-helpers.ts';

const BIN = fileURLToPath(new URL('../../../bin/parley.js', import.meta.url));

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

describe('parley mcp (the bridge to the service) on 2026-07-28', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bridge-2026-'));
  let servicePid: number | undefined;
  afterAll(() => {
    if (servicePid !== undefined) {
      try {
        process.kill(servicePid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a stateless client lists, asks, answers the approval by retrying and gets the result', async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        (e): e is [string, string] =>
          e[1] !== undefined && !e[0].startsWith('PARLEY_') && !e[0].startsWith('OPENAI_') && !e[0].startsWith('OTEL_'),
      ),
    );
    const asked: string[] = [];
    const client = mcpClient('bridge-2026', acceptingElicitation(asked), { modern: true });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        cwd: mkdtempSync(join(tmpdir(), 'parley-bridge-proj-')),
        env: { ...env, PARLEY_DATA_DIR: dataDir, PARLEY_LOG_LEVEL: 'warn' },
        stderr: 'ignore',
      }),
    );
    try {
      servicePid = (JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')) as { pid: number }).pid;
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['council', 'plan', 'direct']);
      const file = join(dataDir, 'workspace', 'bridged.txt');
      const args = JSON.stringify({ path: file, content: 'through the bridge' });
      const result = await client.callTool({
        name: 'ask',
        arguments: {
          query: `Write bridged.txt [[steps:1]] [[tool:filesystem/write_file ${args}]]`,
          mode: 'orchestrate',
        },
      });
      expect(structured<AskResult>(result).status).toBe('completed');
      expect(asked).toEqual([expect.stringContaining('write_file')]);
      expect(existsSync(file) && readFileSync(file, 'utf8')).toBe('through the bridge');
    } finally {
      await client.close();
    }
  }, 120_000);
});
