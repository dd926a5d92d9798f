/**
 * Ingestion against real sources: a stdio MCP server (child process), a Streamable HTTP MCP server
 * with a bearer header, servers that fail, a disabled one, SKILL.md folders with bad files, and
 * A2A cards in v1.0 and v0.3 shapes, all on 127.0.0.1, into a real Kuzu store in memory.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore } from '../../../src/knowledge/store.ts';
import { ingestAll, type IngestDeps } from '../../../src/knowledge/ingest/ingest.ts';
import { McpConfigError } from '../../../src/tools/mcp-config.ts';
import { startIngestHttpServer } from '../../fixtures/knowledge/mcp-http-server.ts';
import { cardV03, cardV1, startCardServer } from '../../fixtures/knowledge/a2a-card-server.ts';
import type { TestServer } from '../../support/http.ts';

const STDIO_FIXTURE = resolve('test/fixtures/knowledge/mcp-stdio-server.ts');

const GOOD_SKILL = `---
name: invoice-clerk
description: Reconciles invoices against payments and chases overdue customers.
domains: [finance, invoices]
tools: [invoices/*]
---
You are an invoice clerk.
`;
const BAD_YAML = `---
name: broken
description: [unclosed
---
body
`;
const NO_DESCRIPTION = `---
name: vague
---
A prompt without a description.
`;

function mcpConfig(extra: { invoicesTools?: string; remoteUrl?: string } = {}) {
  return JSON.stringify({
    mcpServers: {
      invoices: {
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_FIXTURE],
        cwd: process.cwd(),
        env: {
          FIXTURE_GREETING: '${GREETING}',
          FIXTURE_TOOLS: extra.invoicesTools ?? 'lookup_invoice,delete_invoice,greet',
        },
        disabledTools: ['delete_invoice'],
        domains: ['finance'],
        requireApproval: ['delete_invoice'],
      },
      remote: {
        url: '${REMOTE_URL}',
        transport: 'streamable-http',
        headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' },
      },
      crashes: { command: process.execPath, args: ['-e', 'console.error("fixture: cannot start"); process.exit(3)'] },
      refused: { url: 'http://127.0.0.1:1/mcp' },
      off: { url: '${NOT_SET_ANYWHERE}', disabled: true },
    },
  });
}

describe('ingestion', () => {
  let http: TestServer & { mcpUrl: string };
  let cards: Awaited<ReturnType<typeof startCardServer>>;
  let dir: string;
  let store: KnowledgeStore;
  let deps: IngestDeps;

  beforeAll(async () => {
    http = await startIngestHttpServer('s3cret');
    cards = await startCardServer();
    cards.cards.weather = cardV1(`${cards.url}/weather`);
    cards.cards.currency = cardV03(`${cards.url}/currency`);
  });
  afterAll(async () => {
    await http.close();
    await cards.close();
  });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-ingest-'));
    writeFileSync(join(dir, 'mcp_config.json'), mcpConfig());
    const skills = join(dir, 'skills');
    mkdirSync(skills, { recursive: true });
    writeFileSync(join(skills, 'invoice-clerk.md'), GOOD_SKILL);
    writeFileSync(join(skills, 'broken.md'), BAD_YAML);
    writeFileSync(join(skills, 'vague.md'), NO_DESCRIPTION);
    store = await openKuzuStore({ path: ':memory:' });
    deps = {
      store,
      mcpConfigPath: join(dir, 'mcp_config.json'),
      skillsDirs: [skills],
      a2aPeers: [`${cards.url}/weather`, `${cards.url}/currency`],
      env: { GREETING: 'bonjour', REMOTE_URL: http.mcpUrl, REMOTE_TOKEN: 's3cret' },
      discoveryTimeoutMs: 15_000,
    };
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ingests every kind of source, records failures and bad files, and goes on', async () => {
    const report = await ingestAll(deps);

    // stdio server: env expanded into the child process, disabled tool left out, annotations kept.
    const invoices = await store.getSpecialist('invoices');
    expect(invoices).toMatchObject({
      kind: 'mcp',
      endpoint: 'invoices',
      available: true,
      domains: ['finance'],
      sourceId: 'mcp:invoices',
    });
    expect(invoices?.tools).toEqual(['invoices/greet', 'invoices/lookup_invoice']);
    expect(invoices?.description).toContain('Looks up and manages invoices.');
    expect((await store.getTool('invoices/greet'))?.description).toBe('Says bonjour.');
    const lookup = await store.getTool('invoices/lookup_invoice');
    expect(lookup?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false, title: 'Look up invoice' });
    expect(lookup?.inputSchema).toMatchObject({
      type: 'object',
      properties: { number: { type: 'string', description: 'invoice number' } },
      required: ['number'],
    });
    expect(await store.getTool('invoices/delete_invoice')).toBeUndefined();

    // HTTP server: reached with the expanded bearer header.
    expect((await store.getSpecialist('remote'))?.available).toBe(true);
    expect((await store.listTools('remote')).map((t) => t.id)).toEqual(['remote/lookup_invoice']);

    // Failing servers: recorded unavailable with the reason; disabled one not expanded, not ingested.
    const crashes = await store.getSpecialist('crashes');
    expect(crashes?.available).toBe(false);
    expect(crashes?.unavailableReason).toMatch(/MCP server 'crashes' failed discovery/);
    expect(crashes?.unavailableReason).toContain('cannot start');
    expect((await store.getSource('mcp:refused'))?.status).toBe('unavailable');
    expect(report.unavailable.map((u) => u.source).sort()).toEqual(['mcp:crashes', 'mcp:refused']);
    expect(await store.getSpecialist('off')).toBeUndefined();
    expect(report.sources).toContainEqual({ id: 'mcp:off', kind: 'mcp', outcome: 'disabled' });

    // SKILL.md folder: good file in, `invoices/*` expanded; bad files reported with path and reason.
    const clerk = await store.getSpecialist('invoice-clerk');
    expect(clerk).toMatchObject({
      kind: 'prompt',
      prompt: 'You are an invoice clerk.',
      tools: ['invoices/greet', 'invoices/lookup_invoice'],
    });
    expect(report.skippedFiles.map((s) => s.path.split('/').pop()).sort()).toEqual(['broken.md', 'vague.md']);
    expect(report.skippedFiles.find((s) => s.path.endsWith('broken.md'))?.reason).toMatch(/not valid YAML/);
    expect(report.skippedFiles.find((s) => s.path.endsWith('vague.md'))?.reason).toMatch(/description/);

    // A2A cards, both shapes.
    const weather = await store.getSpecialist('a2a-weather-oracle');
    expect(weather).toMatchObject({
      kind: 'a2a',
      endpoint: `${cards.url}/weather`,
      domains: ['weather', 'forecast'],
      available: true,
    });
    expect(weather?.description).toContain('Daily weather forecast');
    const currency = await store.getSpecialist('a2a-currency-agent');
    expect(currency).toMatchObject({
      kind: 'a2a',
      endpoint: `${cards.url}/currency`,
      domains: ['finance', 'currency'],
    });

    // What was ingested is retrievable.
    expect((await store.retrieveSpecialists('what is the rain forecast for Paris tomorrow', 3))[0]?.specialist.id).toBe(
      'a2a-weather-oracle',
    );
    expect((await store.retrieveSpecialists('convert 100 USD to EUR currency', 3))[0]?.specialist.id).toBe(
      'a2a-currency-agent',
    );
    expect(report.specialists).toBe(5); // invoices, remote, invoice-clerk, 2 peers
    expect(report.tools).toBe(3);
  });

  it('a specialist naming tools of a server the config does not define (or disables) is reported, on every ingestion', async () => {
    const path = join(deps.skillsDirs[0]!, 'ghost-hunter.md');
    writeFileSync(
      path,
      '---\nname: ghost-hunter\ndescription: Uses servers that are not there.\ntools: [ghost/*, off/read, invoices/greet]\n---\nYou hunt.\n',
    );
    const expected = [
      { specialist: 'ghost-hunter', path, server: 'ghost' },
      { specialist: 'ghost-hunter', path, server: 'off' },
    ];
    expect((await ingestAll(deps)).unknownServers).toEqual(expected);
    // The folder is unchanged the second time (skipped), and the gap is still said.
    const again = await ingestAll(deps);
    expect(again.sources.find((s) => s.id === `skills:${deps.skillsDirs[0]}`)?.outcome).toBe('unchanged');
    expect(again.unknownServers).toEqual(expected);
    // Still a specialist: it runs without those tools.
    expect((await store.getSpecialist('ghost-hunter'))?.available).toBe(true);
  });

  it('re-ingesting unchanged sources changes nothing', async () => {
    await ingestAll(deps);
    const before = {
      specialists: await store.listSpecialists(),
      tools: await store.listTools(),
      sources: await Promise.all(
        ['mcp:invoices', 'skills:' + deps.skillsDirs[0], `a2a:${cards.url}/weather`].map((id) => store.getSource(id)),
      ),
    };
    const again = await ingestAll(deps);
    expect(
      again.sources
        .filter((s) => s.outcome === 'unchanged')
        .map((s) => s.id)
        .sort(),
    ).toEqual(
      [
        'mcp:invoices',
        'mcp:remote',
        `skills:${deps.skillsDirs[0]}`,
        `a2a:${cards.url}/weather`,
        `a2a:${cards.url}/currency`,
      ].sort(),
    );
    expect(again.specialists).toBe(0);
    expect(await store.listSpecialists()).toEqual(before.specialists);
    expect(await store.listTools()).toEqual(before.tools);
    expect(
      await Promise.all(
        ['mcp:invoices', 'skills:' + deps.skillsDirs[0], `a2a:${cards.url}/weather`].map((id) => store.getSource(id)),
      ),
    ).toEqual(before.sources);
  });

  it('marks what a source no longer lists as gone, and brings it back when it returns', async () => {
    await ingestAll(deps);
    writeFileSync(deps.mcpConfigPath!, mcpConfig({ invoicesTools: 'lookup_invoice' }));
    unlinkSync(join(deps.skillsDirs[0]!, 'invoice-clerk.md'));
    const peers = deps.a2aPeers;
    const report = await ingestAll({ ...deps, a2aPeers: [peers[0]!] });

    expect((await store.getTool('invoices/greet'))?.available).toBe(false);
    expect((await store.getTool('invoices/lookup_invoice'))?.available).toBe(true);
    expect((await store.getSpecialist('invoices'))?.tools).toEqual(['invoices/lookup_invoice']);
    expect((await store.getSpecialist('invoice-clerk'))?.available).toBe(false);
    expect((await store.getSpecialist('a2a-currency-agent'))?.available).toBe(false);
    expect(report.sources).toContainEqual({ id: `a2a:${peers[1]}`, kind: 'a2a', outcome: 'removed' });
    expect((await store.retrieveSpecialists('convert currency', 5)).map((c) => c.specialist.id)).not.toContain(
      'a2a-currency-agent',
    );

    await ingestAll(deps); // the peer is configured again
    expect((await store.getSpecialist('a2a-currency-agent'))?.available).toBe(true);
  });

  it('a missing ${VAR} is a clear error naming it, and nothing is written', async () => {
    const env = { ...deps.env, REMOTE_TOKEN: undefined };
    const attempt = ingestAll({ ...deps, env });
    await expect(attempt).rejects.toBeInstanceOf(McpConfigError);
    await expect(ingestAll({ ...deps, env })).rejects.toThrow(
      /mcpServers\.remote\.headers\.Authorization uses \$\{REMOTE_TOKEN\}, but the environment variable REMOTE_TOKEN is not set/,
    );
    expect(await store.listSpecialists()).toEqual([]);
  });

  it('an A2A peer that does not answer is recorded unavailable', async () => {
    const report = await ingestAll({
      ...deps,
      mcpConfigPath: undefined,
      skillsDirs: [],
      a2aPeers: [`${cards.url}/nobody`],
    });
    expect(report.unavailable).toHaveLength(1);
    expect(report.unavailable[0]?.source).toBe(`a2a:${cards.url}/nobody`);
    expect((await store.getSource(`a2a:${cards.url}/nobody`))?.status).toBe('unavailable');
  });

  it('an A2A peer whose first connection is reset (an idle keep-alive closed as it is reused) is read on a fresh one', async () => {
    let requests = 0;
    const peer = createServer((req, res) => {
      requests++;
      // The first request's connection dies without an answer: undici's "fetch failed".
      if (requests === 1) return req.socket.destroy();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(cardV1(`http://127.0.0.1:${(peer.address() as AddressInfo).port}/flaky`)));
    });
    await new Promise<void>((done) => peer.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/flaky`;
      const report = await ingestAll({ ...deps, mcpConfigPath: undefined, skillsDirs: [], a2aPeers: [url] });
      expect(report.unavailable).toEqual([]);
      expect(requests).toBe(2);
      expect((await store.getSource(`a2a:${url}`))?.status).not.toBe('unavailable');
      expect((await store.listSpecialists()).map((s) => s.kind)).toContain('a2a');
    } finally {
      peer.closeAllConnections();
      await new Promise((done) => peer.close(done));
    }
  });
});
