/**
 * Citations are a request option (issue 43): by default the answer names no source and the sources
 * travel as data; a request with `citations: "numbered"` gets [1], [2] in the text, pointing at named
 * sources (the file a tool read: never a step id), and the list of references at the end. Seen over SSE
 * (POST /stream, real HTTP) and over A2A with its own client SDK (metadata.citations, the answer
 * artifact's metadata), with a real MCP server whose read_note the planned step calls. AG-UI, ACP, MCP
 * and the OpenAI-compatible endpoint have theirs in their own test files (protocols/<protocol>/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendMessageRequest } from '@a2a-js/sdk';
import { silentLogger } from '../../../src/log.ts';
import { sseRoutes } from '../../../src/protocols/sse/index.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';
import { serveRoutes, type TestServer } from '../../support/http.ts';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';
import { collect, send, startA2ARig, text, type A2ARig } from '../../support/protocols/a2a-helpers.ts';
import { READER, STANDUP_REFERENCE, STANDUP_SOURCE, STEP_IDS } from '../../support/protocols/citing.ts';
import { expectNumbered, expectUncited } from '../../support/protocols/citing-expect.ts';

const QUERY = 'reader: read the standup notes [[verify:0.95]] [[tool:fx/read_note {"path":"notes/standup.md"}]]';

let rig: A2ARig;
let sse: TestServer;
beforeAll(async () => {
  rig = await startA2ARig({ specialists: [READER] });
  const { parley } = rig;
  sse = await serveRoutes([
    {
      path: '/',
      app: sseRoutes({
        engine: parley.engine,
        config: parley.config,
        logger: silentLogger,
      }),
    },
  ]);
});
afterAll(async () => {
  await sse?.close();
  await rig?.close();
});

type Finished = Extract<GraphEvent, { type: 'run.finished' }>;

async function stream(body: object): Promise<Finished> {
  const res = await postJson(`${sse.url}/stream`, body);
  expect(res.status).toBe(200);
  const events = (await readAll(res)).map((m) => m.json as GraphEvent);
  return events.at(-1) as Finished;
}

const synthesizerCall = (runId: string) =>
  rig.parley.scripted.requests.find((r) => r.runId === runId && r.role === 'synthesizer')!;
const systemOf = (r: { body: unknown }) =>
  JSON.stringify((r.body as { messages: { role: string; content: unknown }[] }).messages[0]!.content);

describe('SSE', () => {
  it('by default: no citation in the text, no step id; the file the step read travels as data', async () => {
    const finished = await stream({ query: QUERY, mode: 'orchestrate' });
    expect(finished.status).toBe('completed');
    expect(finished.answer).not.toMatch(/\[\d+\]|References:/);
    expect(finished.answer).not.toMatch(STEP_IDS);
    expect(finished.references).toBeUndefined();
    expect(finished.sources).toEqual([
      {
        stepId: 's1',
        specialist: 'reader',
        named: [{ kind: 'file', title: 'standup.md', uri: 'notes/standup.md' }],
      },
    ]);
    const system = systemOf(synthesizerCall(finished.runId));
    expect(system).toContain('Do not mention steps, their ids');
    expect(system).not.toMatch(/square brackets|parley:references/);
  });

  it('citations "numbered": [1] in the text, and the list of named references at its end', async () => {
    const finished = await stream({ query: QUERY, mode: 'orchestrate', citations: 'numbered' });
    expect(finished.status).toBe('completed');
    expect(finished.references).toEqual([
      { n: 1, kind: 'file', title: 'standup.md', uri: 'notes/standup.md', stepIds: ['s1'] },
    ]);
    expect(finished.answer).toMatch(/ \[1\]\n/);
    expect(finished.answer!.endsWith('\n\nReferences:\n[1] standup.md (file)')).toBe(true);
    expect(finished.answer).not.toMatch(STEP_IDS);
    // The synthesizer was given the numbered sources by name, and each step's numbers.
    const synth = synthesizerCall(finished.runId);
    expect(synth.lastUserMessage).toContain(
      '<parley:references>[{"n":1,"kind":"file","title":"standup.md"}]</parley:references>',
    );
    expect(synth.lastUserMessage).toContain('"references":[1]');
    expect(systemOf(synth)).toContain('Cite a source by its number in square brackets');
  });

  it('an unknown citation style is a 400 that names the field, and starts no run', async () => {
    const before = rig.parley.scripted.requests.length;
    const res = await postJson(`${sse.url}/stream`, { query: QUERY, citations: 'footnotes' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('citations');
    expect(rig.parley.scripted.requests.length).toBe(before);
  });
});

describe('A2A (its client SDK)', () => {
  type Provenance = { parley?: { references?: unknown[]; sources?: unknown[] } };

  /** The answer artifact's text and the provenance in its metadata. */
  async function answerOf(request: SendMessageRequest) {
    const events = await collect(rig.client.sendMessageStream(request));
    const answer = events
      .map((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value.artifact : undefined))
      .find((a) => a?.artifactId === 'answer')!;
    const said = answer.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    return { said, parley: (answer.metadata as Provenance).parley };
  }

  it('metadata.citations "numbered": the answer artifact cites [1] and carries the references in its metadata', async () => {
    const { said, parley } = await answerOf(send([text(QUERY)], {}, { mode: 'orchestrate', citations: 'numbered' }));
    expectNumbered(said);
    expect(parley?.references).toEqual([STANDUP_REFERENCE]);
    expect(parley?.sources).toEqual([STANDUP_SOURCE]);
  });

  it("the message's metadata.citations counts when the request's metadata has none", async () => {
    const request = send([text(QUERY)], {}, { mode: 'orchestrate' });
    request.message!.metadata = { citations: 'numbered' };
    const { said, parley } = await answerOf(request);
    expectNumbered(said);
    expect(parley?.references).toEqual([STANDUP_REFERENCE]);
  });

  it('without it: no [n] in the answer; the file read still comes in its metadata, with no references', async () => {
    const { said, parley } = await answerOf(send([text(QUERY)], {}, { mode: 'orchestrate' }));
    expectUncited(said);
    expect(parley?.sources).toEqual([STANDUP_SOURCE]);
    expect(parley?.references).toBeUndefined();
  });

  it('an unknown citation style is refused with the reason', async () => {
    await expect(
      rig.client.sendMessage(send([text(QUERY)], {}, { mode: 'orchestrate', citations: 'footnotes' })),
    ).rejects.toThrow(/citations must be one of none, numbered/);
  });
});
