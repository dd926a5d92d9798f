/**
 * Issue 44 §6: nothing served without auth names a local path, a user name or a host detail. The
 * shipped filesystem server's description names the workspace folder (PARLEY_DATA_DIR/workspace): the
 * public agent card, read with the A2A SDK's own resolver and without a key, must not carry it, nor
 * must any other answer a caller without a key gets (public paths and every route's 401).
 */
import { homedir, hostname, tmpdir } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { startShippedParley, type ShippedParley } from '../../../support/server.ts';

let server: ShippedParley;
beforeAll(async () => {
  server = await startShippedParley({ PARLEY_API_KEYS: 'card-key' });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

/** What must not appear: this machine's folders and name, and any absolute path of two segments or more. */
function localDetails(text: string): string[] {
  const found: string[] = [];
  const names = [server.dataDir, tmpdir(), homedir(), process.cwd(), ...(hostname().length >= 3 ? [hostname()] : [])];
  for (const name of names) if (text.includes(name)) found.push(name);
  for (const m of text.matchAll(/(?<![\w.:/\\~-])(?:~|[A-Za-z]:)?[/\\](?:[\w.@~+-]+[/\\])+[\w.@~+-]*/g))
    if (!/^\/(a2a|api|mcp|acp|stream|v1|ag-ui|assets|\.well-known)\//.test(m[0])) found.push(m[0]);
  return found;
}

it('the public agent card describes the filesystem specialist without naming the workspace folder', async () => {
  const card = await new DefaultAgentCardResolver().resolve(server.url);
  const files = card.skills.find((s) => /workspace folder/.test(s.description));
  expect(files, 'the shipped filesystem server is a skill').toBeDefined();
  expect(files!.description).toMatch(/workspace folder, \(a local folder\)/);
  expect(localDetails(JSON.stringify(card))).toEqual([]);
  // The raw answer too (the v0.3 mirror, every field the resolver may not map).
  const raw = await (await fetch(`${server.url}/.well-known/agent-card.json`)).text();
  expect(localDetails(raw)).toEqual([]);
});

it('no answer to a caller without a key names one', async () => {
  const paths = [
    '/health',
    '/ready',
    '/',
    '/index.html',
    '/favicon.svg',
    '/api/runs',
    '/api/specialists',
    '/mcp/config',
    '/mcp/tools',
    '/mcp/servers',
    '/v1/models',
    '/ag-ui/capabilities',
  ];
  for (const path of paths) {
    const res = await fetch(`${server.url}${path}`);
    expect([path, localDetails(await res.text())]).toEqual([path, []]);
  }
});
