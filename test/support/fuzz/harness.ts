/**
 * The fuzz harness shared by the suite's test (test/integration/server/fuzz.test.ts, about a minute)
 * and `npm run fuzz` (bench/fuzz.ts, ≥ 10,000 requests): the real server from createParley on
 * 127.0.0.1 with API keys, the sessions a malformed request may name (one MCP session, one ACP
 * connection with a session, its SSE listener), and a runner that keeps fuzzing an endpoint after
 * a failure: each distinct failure (checks.ts signature) is shrunk by fast-check and recorded once.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/log.ts';
import { createParley, type Parley } from '../../../src/server.ts';
import { signature, violations, type Violation } from './checks.ts';
import type { Endpoint } from './endpoints.ts';
import { requestFor } from './request.ts';
import { sendHttp, sendWebSocket, type Outcome } from './send.ts';
import { describe, type FuzzRequest, type Placeholders } from './wire.ts';
import { EMPTY_MCP_CONFIG } from '../server.ts';

export const FUZZ_KEY = 'fuzz-key-alpha';
export const OTHER_KEY = 'fuzz-key-beta';
const MCP_ACCEPT = 'application/json, text/event-stream';

export interface Failure {
  signature: string;
  endpoint: string;
  violations: Violation[];
  /** The shrunk counterexample, printable. */
  request: string;
  status: Outcome['status'];
  response: string;
  shrinks: number;
  seed: number;
}

export interface FuzzTarget {
  parley: Parley;
  url: string;
  values: Placeholders;
  /** Requests sent, by endpoint and status. */
  tally: Map<string, Map<string, number>>;
  /** (Re)opens the MCP session and the ACP connection a fuzzed DELETE may have closed. */
  ensureSessions(): Promise<void>;
  /** GET /health answers 200 { status: "ok" }. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

export async function startFuzzTarget(env: Record<string, string> = {}): Promise<FuzzTarget> {
  const config = loadConfig({
    PARLEY_HOST: '127.0.0.1',
    PARLEY_PORT: '0',
    PARLEY_API_KEYS: `${FUZZ_KEY},${OTHER_KEY}`,
    PARLEY_DATA_DIR: ':memory:',
    PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
    ...env,
  });
  const parley = await createParley(config, { logger: silentLogger, telemetry: false });
  const { url } = await parley.listen();
  const values: Placeholders = { key: FUZZ_KEY, 'other-key': OTHER_KEY, 'own-origin': url };
  const auth = { authorization: `Bearer ${FUZZ_KEY}`, 'content-type': 'application/json' };
  let acpListener: AbortController | undefined;

  const mcpAlive = async () =>
    values['mcp-session'] !== undefined &&
    (await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...auth, accept: MCP_ACCEPT, 'mcp-session-id': values['mcp-session'] },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'alive', method: 'ping' }),
    })
      .then(async (r) => (await r.text(), r.status === 200))
      .catch(() => false));

  const ensureSessions = async () => {
    if (!(await mcpAlive())) {
      const init = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...auth, accept: MCP_ACCEPT },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
        }),
      });
      await init.text();
      values['mcp-session'] = init.headers.get('mcp-session-id') ?? 'none';
      const initialized = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...auth, accept: MCP_ACCEPT, 'mcp-session-id': values['mcp-session'] },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      await initialized.text();
    }
    const probe = values['acp-connection']
      ? await fetch(`${url}/acp`, {
          method: 'POST',
          headers: { ...auth, 'acp-connection-id': values['acp-connection'] },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 'alive',
            method: 'session/cancel',
            params: { sessionId: values['acp-session'] },
          }),
        })
      : undefined;
    await probe?.text();
    if (probe && probe.status < 300) return;
    acpListener?.abort();
    const init = await fetch(`${url}/acp`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    });
    await init.text();
    const connection = init.headers.get('acp-connection-id') ?? 'none';
    values['acp-connection'] = connection;
    // Answers inside a connection come on its GET stream: keep one listener reading (and dropping) them.
    acpListener = new AbortController();
    const listener = await fetch(`${url}/acp`, {
      headers: { ...auth, 'acp-connection-id': connection, accept: 'text/event-stream' },
      signal: acpListener.signal,
    });
    const sessionId = new Promise<string>((ok) => {
      const reader = listener.body!.getReader();
      let seen = '';
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          seen = (seen + Buffer.from(value).toString('utf8')).slice(-4096);
          const m = /"sessionId":"([^"]+)"/.exec(seen);
          if (m) ok(m[1]!);
        }
      })().catch(() => undefined);
      setTimeout(() => ok('none'), 5_000).unref();
    });
    const created = await fetch(`${url}/acp`, {
      method: 'POST',
      headers: { ...auth, 'acp-connection-id': connection },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } }),
    });
    await created.text();
    values['acp-session'] = await sessionId;
  };

  await ensureSessions();
  return {
    parley,
    url,
    values,
    tally: new Map(),
    ensureSessions,
    healthy: async () => {
      try {
        const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
        return res.status === 200 && ((await res.json()) as { status?: string }).status === 'ok';
      } catch {
        return false;
      }
    },
    close: async () => {
      acpListener?.abort();
      await parley.close();
    },
  };
}

export interface EndpointRun {
  endpoint: string;
  requests: number;
  failures: Failure[];
  interrupted: boolean;
}

/** Sends one request and checks it; counts it in the tally. */
async function probe(
  target: FuzzTarget,
  endpoint: Endpoint,
  req: FuzzRequest,
): Promise<{ outcome: Outcome; found: Violation[] }> {
  const before = target.parley.engine.retainedRuns;
  const outcome = req.frames
    ? await sendWebSocket(target.url, req, target.values)
    : await sendHttp(target.url, req, target.values);
  // A run an adapter starts after answering (a background task) shows up a turn later.
  await new Promise((r) => setImmediate(r));
  const runsCreated = target.parley.engine.retainedRuns - before;
  const byStatus = target.tally.get(endpoint.id) ?? new Map<string, number>();
  byStatus.set(String(outcome.status), (byStatus.get(String(outcome.status)) ?? 0) + 1);
  target.tally.set(endpoint.id, byStatus);
  return { outcome, found: violations({ endpoint, request: req, outcome, runsCreated, values: target.values }) };
}

/**
 * Fuzzes one endpoint for up to `numRuns` requests and `timeLimitMs`. On a failure fast-check
 * shrinks it; it is recorded, its signatures become known, and fuzzing goes on looking for others.
 */
export async function fuzzEndpoint(
  target: FuzzTarget,
  endpoint: Endpoint,
  opts: { numRuns: number; timeLimitMs: number; seed: number; maxFailures?: number },
): Promise<EndpointRun> {
  const known = new Set<string>();
  const failures: Failure[] = [];
  const failing = new Map<FuzzRequest, { outcome: Outcome; found: Violation[] }>();
  let requests = 0;
  let interrupted = false;
  let seed = opts.seed;
  await target.ensureSessions();
  // The time limit is for fuzzing: reopening sessions on a loaded machine took the whole of it once
  // (2 s per row in the suite), and the row sent no request at all.
  const deadline = Date.now() + opts.timeLimitMs;

  while (requests < opts.numRuns && Date.now() < deadline && failures.length < (opts.maxFailures ?? 8)) {
    failing.clear();
    const property = fc.asyncProperty(requestFor(endpoint), async (req) => {
      requests += 1;
      const result = await probe(target, endpoint, req);
      const fresh = result.found.filter((v) => !known.has(signature(endpoint, req, v)));
      if (fresh.length === 0) return true;
      failing.set(req, { ...result, found: fresh });
      return false;
    });
    const details = await fc.check(property, {
      numRuns: Math.max(1, opts.numRuns - requests),
      seed,
      plugins: [fc.interruptAfterTimeLimit(Math.max(1, deadline - Date.now()))],
    });
    interrupted ||= details.interrupted;
    if (!details.failed || !details.counterexample) break;
    const req = (details.counterexample as [FuzzRequest])[0];
    const seen = failing.get(req);
    if (!seen) break;
    for (const v of seen.found) known.add(signature(endpoint, req, v));
    failures.push({
      signature: signature(endpoint, req, seen.found[0]!),
      endpoint: endpoint.id,
      violations: seen.found,
      request: describe(req),
      status: seen.outcome.status,
      response: `${seen.outcome.detail ? `[${seen.outcome.detail}] ` : ''}${seen.outcome.body.slice(0, 400)}`,
      shrinks: details.numShrinks,
      seed,
    });
    seed += 1;
    // A DELETE may have closed the sessions requests name; the next round gets them back.
    await target.ensureSessions();
  }
  return { endpoint: endpoint.id, requests, failures, interrupted };
}

/** A full GC, when the runtime allows one (exposed on demand, so no --expose-gc flag is needed). */
export function collectGarbage(): boolean {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) {
    exposed();
    return true;
  }
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (() => void) | undefined;
    gc?.();
    return gc !== undefined;
  } catch {
    return false;
  }
}

/** heapUsed after two full GCs (the second collects what the first's finalizers freed). */
export async function settledHeap(): Promise<number> {
  for (let i = 0; i < 2; i++) {
    collectGarbage();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage().heapUsed;
}

/** The tally as a text table: one row per endpoint, one column per status seen. */
export function tallyTable(tally: FuzzTarget['tally']): string {
  const statuses = [...new Set([...tally.values()].flatMap((m) => [...m.keys()]))].sort();
  const rows = [...tally.entries()].map(([ep, m]) => [
    ep,
    ...statuses.map((s) => String(m.get(s) ?? '')),
    String([...m.values()].reduce((a, b) => a + b, 0)),
  ]);
  const head = ['endpoint', ...statuses, 'total'];
  const totals = [
    'total',
    ...statuses.map((s) => String([...tally.values()].reduce((a, m) => a + (m.get(s) ?? 0), 0))),
    String([...tally.values()].reduce((a, m) => a + [...m.values()].reduce((x, y) => x + y, 0), 0)),
  ];
  const all = [head, ...rows, totals];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [
    line(head),
    `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...rows.map(line),
    line(totals),
  ].join('\n');
}

/** Failures as readable text: signature, request, response. */
export function failureReport(failures: Failure[]): string {
  return failures
    .map(
      (f, i) =>
        `${i + 1}. ${f.signature}\n   violations: ${f.violations.map((v) => `${v.check} (${v.detail})`).join('; ')}\n   request (shrunk ${f.shrinks}×, seed ${f.seed}): ${f.request}\n   response: ${f.status} ${f.response.replace(/\n/g, '\\n')}`,
    )
    .join('\n');
}
