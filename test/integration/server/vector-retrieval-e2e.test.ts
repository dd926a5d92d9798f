/**
 * PARLEY_EMBEDDINGS_MODEL end to end: the whole server (createParley) and the core (createCore) with
 * the repo's roster, Kuzu in memory, and the scripted model answering chat and embeddings over HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createCore, type Closer } from '../../../src/core.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';
import { createModelClient, pointAtScriptedModel } from '../../../src/llm/index.ts';
import { createLogger } from '../../../src/log.ts';
import { startScriptedModel, type ScriptedModel } from '../../../src/scripted-model/index.ts';
import { createParley, type Parley } from '../../../src/server.ts';
import { REPO_SPECIALISTS_DIR } from '../../support/engine.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';

// No whole word of it is in any specialist's text; "dockerize" shares word parts with devops' "Dockerfiles".
const QUERY = 'please dockerize the payments service';

let scripted: ScriptedModel;
const open: Parley[] = [];
const closers: Closer[] = [];
beforeEach(async () => {
  scripted = await startScriptedModel();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
  for (const c of closers.splice(0).reverse()) await c.close();
  await scripted.close();
});

const baseEnv = () => ({
  PARLEY_PORT: '0',
  PARLEY_DATA_DIR: ':memory:',
  PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
  PARLEY_SKILLS_DIRS: REPO_SPECIALISTS_DIR,
  PARLEY_LOG_LEVEL: 'silent',
});

async function runOnce(parley: Parley) {
  const handle = parley.engine.start({ protocol: 'test', query: QUERY });
  const events: GraphEvent[] = [];
  for await (const e of handle.events()) events.push(e);
  return { result: await handle.result, events };
}

function planOf(events: GraphEvent[]) {
  const route = events.find(
    (e): e is Extract<GraphEvent, { type: 'route.decided' }> =>
      e.type === 'route.decided' && e.candidates !== undefined,
  );
  const plan = events.find((e): e is Extract<GraphEvent, { type: 'plan.ready' }> => e.type === 'plan.ready');
  return { candidates: route?.candidates ?? [], specialists: plan?.plan.steps.map((s) => s.specialist) ?? [] };
}

describe('PARLEY_EMBEDDINGS_MODEL through createParley', () => {
  it('embeds the roster at start and the query per run, and the planner gets the vector-found specialist', async () => {
    const config = loadConfig({
      ...baseEnv(),
      PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
      PARLEY_MODEL_API_KEY: 'test',
      PARLEY_MODEL: 'scripted',
      PARLEY_EMBEDDINGS_MODEL: 'scripted-embed',
    });
    const lines: string[] = [];
    const parley = await createParley(config, { logger: createLogger('info', (l) => lines.push(l)), telemetry: false });
    open.push(parley);
    expect(lines.some((l) => l.includes('vector retrieval on'))).toBe(true);
    const atStart = scripted.requests.filter((r) => r.endpoint === 'embeddings');
    expect(atStart.map((r) => [r.model, r.inputs])).toEqual([['scripted-embed', 10]]);

    const { result, events } = await runOnce(parley);
    expect(result.status).toBe('completed');
    const { candidates, specialists } = planOf(events);
    expect(candidates[0]).toBe('devops');
    expect(specialists).toEqual(['devops']);

    const calls = scripted.requests.filter((r) => r.endpoint === 'embeddings').slice(atStart.length);
    expect(calls.map((r) => [r.inputs, r.lastUserMessage])).toEqual([[1, QUERY]]); // the query; the roster is not embedded again
    // The planner's prompt listed devops first among the candidates.
    const planner = scripted.requests.find((r) => r.schemaName === 'graph_plan');
    const listed = /<parley:specialists>([\s\S]*?)<\/parley:specialists>/.exec(
      JSON.stringify(planner?.body).replace(/\\"/g, '"').replace(/\\n/g, '\n'),
    );
    expect(listed?.[1]).toMatch(/^\[\{"id":"devops"/);
    // Embedding calls happened before the planner's call that used them.
    expect(calls[0]!.finishedAt!).toBeLessThanOrEqual(planner!.arrivedAt);
  });

  it('without it, retrieval is full-text only: no embeddings calls, and the planner falls back to the first specialists', async () => {
    const config = loadConfig({
      ...baseEnv(),
      PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
      PARLEY_MODEL_API_KEY: 'test',
      PARLEY_MODEL: 'scripted',
    });
    const parley = await createParley(config, { logger: createLogger('silent'), telemetry: false });
    open.push(parley);
    const { result, events } = await runOnce(parley);
    expect(result.status).toBe('completed');
    expect(planOf(events).specialists).not.toContain('devops');
    expect(scripted.requests.filter((r) => r.endpoint === 'embeddings')).toHaveLength(0);
  });

  it('a failing embeddings endpoint costs the run nothing: it completes on text retrieval', async () => {
    scripted.setFaults([{ role: 'embeddings', fault: '500', times: 1000 }]);
    const config = loadConfig({
      ...baseEnv(),
      PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
      PARLEY_MODEL_API_KEY: 'test',
      PARLEY_MODEL: 'scripted',
      PARLEY_EMBEDDINGS_MODEL: 'scripted-embed',
      PARLEY_MODEL_MAX_RETRIES: '1',
      PARLEY_MODEL_RETRY_BASE_MS: '5',
    });
    const lines: string[] = [];
    const parley = await createParley(config, { logger: createLogger('warn', (l) => lines.push(l)), telemetry: false });
    open.push(parley);
    const { result } = await runOnce(parley);
    expect(result.status).toBe('completed');
    expect(lines.filter((l) => l.includes('embeddings unavailable'))).toHaveLength(1);
  });
});

describe('createCore with the built-in scripted model', () => {
  it('uses the modelConfig it is given (after pointAtScriptedModel); without it vectors stay off with a warning', async () => {
    const config = loadConfig({ ...baseEnv(), PARLEY_EMBEDDINGS_MODEL: 'scripted-embed' });
    expect(config.model.scripted).toBe(true);
    const modelConfig = pointAtScriptedModel(config.model, scripted.url);
    const model = createModelClient(modelConfig);

    const core = await createCore(config, model, createLogger('silent'), closers, { modelConfig });
    expect((await core.store.retrieveSpecialists(QUERY, 3))[0]?.specialist.id).toBe('devops');
    expect(scripted.requests.some((r) => r.endpoint === 'embeddings')).toBe(true);

    const lines: string[] = [];
    const textOnly = await createCore(
      config,
      model,
      createLogger('warn', (l) => lines.push(l)),
      closers,
    );
    expect(
      lines.some((l) => l.includes('PARLEY_EMBEDDINGS_MODEL is set but the scripted model address was not given')),
    ).toBe(true);
    expect(await textOnly.store.retrieveSpecialists(QUERY, 3)).toEqual([]);
  });
});
