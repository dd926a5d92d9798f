/**
 * The whole server as a user meets it: createParley with the shipped mcp_config.json (the real
 * reference filesystem server), API keys on, a run over POST /stream whose specialist wants to write
 * a file, and a human answering through POST /api/approve.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEvent, GraphEventOf } from '../../src/graph/run/events.ts';
import { startShippedParley, writeFileQuery, type ShippedParley } from '../support/server.ts';
import { postJson, readSse } from '../support/protocols/sse-read.ts';

const KEY = 'e2e-secret-key';
const auth = { authorization: `Bearer ${KEY}` };
let server: ShippedParley;
let url: string;
let dataDir: string;

beforeAll(async () => {
  server = await startShippedParley({ PARLEY_API_KEYS: KEY });
  ({ url, dataDir } = server);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const writeQuery = (file: string, content: string) => writeFileQuery(dataDir, file, content);

/** Streams a run until the first approval request; returns it and the rest of the stream. */
async function runUntilApproval(query: string) {
  const res = await postJson(`${url}/stream`, { query, mode: 'orchestrate' }, auth);
  expect(res.status).toBe(200);
  const stream = readSse(res);
  const seen: GraphEvent[] = [];
  // next() rather than for-await: leaving a for-await loop would close the stream.
  for (let m = await stream.next(); !m.done; m = await stream.next()) {
    seen.push(m.value.json);
    if (m.value.json.type === 'approval.requested')
      return { request: m.value.json as GraphEventOf<'approval.requested'>, seen, stream };
  }
  throw new Error(`the run ended without asking for approval: ${seen.map((e) => e.type).join(', ')}`);
}

async function finish(stream: AsyncGenerator<{ json: GraphEvent }>): Promise<GraphEvent[]> {
  const rest: GraphEvent[] = [];
  for await (const m of stream) rest.push(m.json);
  return rest;
}

describe('a destructive tool call over the real server', () => {
  it('pauses for approval, is announced before the tool runs, and writes the file once accepted', async () => {
    const file = join(dataDir, 'workspace', 'accepted.txt');
    const { request, seen, stream } = await runUntilApproval(writeQuery('accepted.txt', 'approved content'));
    expect(request.request.kind).toBe('tool');
    const call = request.request.kind === 'tool' ? request.request.toolCalls[0]! : undefined;
    expect(call?.tool).toBe('filesystem/write_file');
    expect(seen.some((e) => e.type === 'tool.finished')).toBe(false);
    expect(existsSync(file)).toBe(false);

    // The pending request is listed, and the decision needs the same key as every endpoint.
    const listed = (await (await fetch(`${url}/api/approvals?runId=${request.runId}`, { headers: auth })).json()) as {
      approvals: { id: string }[];
    };
    expect(listed.approvals.map((a) => a.id)).toContain(request.request.id);
    const body = { request_id: request.request.id, decisions: { [call!.toolCallId]: 'accept' } };
    expect((await postJson(`${url}/api/approve`, body)).status).toBe(401);
    const approved = await postJson(`${url}/api/approve`, body, auth);
    expect(approved.status).toBe(200);

    const rest = await finish(stream);
    const tool = rest.find((e): e is GraphEventOf<'tool.finished'> => e.type === 'tool.finished');
    expect(tool?.status).toBe('ok');
    expect(rest.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(readFileSync(file, 'utf8')).toBe('approved content');

    // A second answer to the same request changes nothing: 409 already_resolved.
    const again = await postJson(`${url}/api/approve`, body, auth);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('already_resolved');
    // The decision is in the audit trail of the recorded run.
    const run = (await (await fetch(`${url}/api/runs/${request.runId}`, { headers: auth })).json()) as {
      approvals?: { resolvedBy?: string }[];
    };
    expect(run.approvals?.map((a) => a.resolvedBy)).toContain('human');
  });

  it('does not run a denied call and gives the model the feedback', async () => {
    const file = join(dataDir, 'workspace', 'denied.txt');
    const { request, stream } = await runUntilApproval(writeQuery('denied.txt', 'must not exist'));
    const call = request.request.kind === 'tool' ? request.request.toolCalls[0]! : undefined;
    const denied = await postJson(
      `${url}/api/approve`,
      { id: request.request.id, decisions: { [call!.toolCallId]: 'deny' }, feedback: 'not in this folder' },
      auth,
    );
    expect(denied.status).toBe(200);

    const rest = await finish(stream);
    const tool = rest.find((e): e is GraphEventOf<'tool.finished'> => e.type === 'tool.finished');
    expect(tool).toMatchObject({ status: 'denied' });
    expect(tool?.error).toContain('not in this folder');
    const step = rest.find((e): e is GraphEventOf<'step.finished'> => e.type === 'step.finished');
    expect(step?.output).toContain('not in this folder');
    expect(existsSync(file)).toBe(false);
  });

  it('rejects an edit that breaks the tool input schema with 400 and keeps the request pending', async () => {
    const { request, stream } = await runUntilApproval(writeQuery('edited.txt', 'original'));
    const call = request.request.kind === 'tool' ? request.request.toolCalls[0]! : undefined;
    const bad = await postJson(
      `${url}/api/approve`,
      { request_id: request.request.id, decisions: { [call!.toolCallId]: { edit: { path: 42 } } } },
      auth,
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBeTruthy();

    const edited = join(dataDir, 'workspace', 'edited.txt');
    const good = await postJson(
      `${url}/api/approve`,
      {
        request_id: request.request.id,
        decisions: { [call!.toolCallId]: { edit: { path: edited, content: 'edited by a human' } } },
      },
      auth,
    );
    expect(good.status).toBe(200);
    await finish(stream);
    expect(readFileSync(edited, 'utf8')).toBe('edited by a human');
  });
});
