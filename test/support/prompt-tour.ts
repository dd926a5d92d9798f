/**
 * The prompt tour: the server as shipped (the repo's mcp_config.json with the real filesystem and
 * memory servers, specialists/, the built-in scripted model) runs one request per route over POST
 * /stream: a direct answer, a read-only plan, a plan that writes a file with an approval (accepted),
 * a council and a dynamic team; then an evaluation suite's judge grades one run's answer against a rubric
 * (src/eval/judge.ts, the call `parley eval` makes for a `judge` check) and the pairwise judge compares
 * that answer with one direct call's, in both orders (src/eval/versus.ts, `parley eval --versus direct`). It
 * returns every model request Parley sent, so a test can check that
 * no placeholder reached a model and `npm run prompts:render` can write them out for reviewers.
 * No vitest here: the render script uses it too.
 */
import type { GraphEvent } from '../../src/graph/run/events.ts';
import { judge } from '../../src/eval/judge.ts';
import { versusDirect } from '../../src/eval/versus.ts';
import { todayNote } from '../../src/graph/prompting/today.ts';
import type { ScriptedRequestLog } from '../../src/scripted-model/server.ts';
import { postJson, readSse } from './protocols/sse-read.ts';
import { startShippedParley, writeFileQuery } from './server.ts';

/**
 * The instant the tour's engine clock starts at: the date every prompt carries is this one, whenever the
 * tour runs, so the rendered prompts do not change with the day. The clock still advances.
 */
export const TOUR_START = Date.parse('2026-01-15T09:30:00Z');

/** A clock that starts at TOUR_START and advances with real time. */
function tourClock(): () => number {
  const offset = TOUR_START - Date.now();
  return () => Date.now() + offset;
}

export interface TourScenario {
  name: string;
  /** What it exercises, for the rendered file. */
  about: string;
  request: { query: string; mode?: string };
  /** A rubric: after the run, the judge grades its answer against it (its request joins the run's). */
  judge?: string;
  /** After the run, `--versus direct`: one bare call answers the query, the pairwise judge compares both ways. */
  versus?: true;
}

export interface TourRun {
  scenario: TourScenario;
  runId: string;
  events: GraphEvent[];
  /** The model requests of this run, oldest first. */
  requests: ScriptedRequestLog[];
}

export interface PromptTour {
  /** The data dir the server ran on (its workspace is `<dataDir>/workspace`). */
  dataDir: string;
  runs: TourRun[];
}

function scenarios(dataDir: string): TourScenario[] {
  return [
    {
      name: 'direct',
      about: 'a greeting: the router answers directly',
      request: { query: 'Hello! How are you today?' },
    },
    {
      name: 'plan-read-only',
      about: 'a plan whose steps only read (the planner sets changes false): read-only tools only',
      request: { query: 'Summarise the research notes in the workspace files and the memory graph' },
    },
    {
      name: 'plan-write-approval',
      about: 'a plan step that writes a workspace file through the filesystem server; the write is approved',
      request: { query: writeFileQuery(dataDir, 'release-notes.md', '# Release notes\n\n- Faster startup\n') },
    },
    {
      name: 'council',
      about: 'a decision: five advisors, three reviewers in their own orders, a chairman',
      request: { query: 'Should we move our event store from Postgres to Kafka?' },
    },
    {
      name: 'dynamic',
      about: 'open-ended work: a manager spawns agents as it learns the parts',
      request: { query: 'Find the top 3 open-source vector databases and compare their licences' },
    },
    {
      name: 'dynamic-edit',
      about: "the same work, the verifier passing it with a note: the manager's answer revised by edits",
      request: {
        query: 'Survey the open-source message brokers and compare their licences [[verify:0.9]]',
        mode: 'dynamic',
      },
    },
    {
      name: 'eval-judge',
      about: "a planned answer, then an evaluation suite's judge check grades it against a rubric",
      request: { query: 'Compare B-trees and LSM-trees for a write-heavy workload', mode: 'orchestrate' },
      judge:
        'The answer names a workload where "LSM-trees" win (heavy writes) and one where "B-trees" win (reads, range scans), and says why.',
      versus: true,
    },
  ];
}

/** Streams one run over POST /stream, accepting every tool approval it asks for. */
async function runAccepting(url: string, body: object): Promise<GraphEvent[]> {
  const res = await postJson(`${url}/stream`, body);
  if (res.status !== 200) throw new Error(`POST /stream answered ${res.status}: ${await res.text()}`);
  const events: GraphEvent[] = [];
  for await (const m of readSse(res)) {
    events.push(m.json);
    if (m.json.type === 'approval.requested' && m.json.request.kind === 'tool') {
      const decisions = Object.fromEntries(m.json.request.toolCalls.map((c) => [c.toolCallId, 'accept']));
      const ok = await postJson(`${url}/api/approve`, { request_id: m.json.request.id, decisions });
      if (ok.status !== 200) throw new Error(`POST /api/approve answered ${ok.status}`);
    }
  }
  return events;
}

export async function runPromptTour(): Promise<PromptTour> {
  const now = tourClock();
  const shipped = await startShippedParley({}, { now });
  try {
    const log = shipped.parley.scripted?.requests;
    if (!log) throw new Error('the prompt tour needs the built-in scripted model (no model endpoint configured)');
    const runs: TourRun[] = [];
    for (const scenario of scenarios(shipped.dataDir)) {
      const events = await runAccepting(shipped.url, scenario.request);
      const runId = events[0]?.runId ?? '';
      const finished = events.find((e) => e.type === 'run.finished');
      if (scenario.judge && finished?.type === 'run.finished')
        await judge(shipped.parley.model, {
          query: scenario.request.query,
          answer: finished.answer ?? '',
          rubric: scenario.judge,
          runId,
          today: todayNote(now(), shipped.parley.config.engine.timeZone),
        });
      if (scenario.versus && finished?.type === 'run.finished')
        await versusDirect(shipped.parley.model, {
          query: scenario.request.query,
          earlier: [],
          graphAnswer: finished.answer ?? '',
          criteria: scenario.judge ? [scenario.judge] : [],
          runId,
          today: todayNote(now(), shipped.parley.config.engine.timeZone),
        });
      runs.push({ scenario, runId, events, requests: log.filter((r) => r.runId === runId) });
    }
    return { dataDir: shipped.dataDir, runs };
  } finally {
    await shipped.close();
  }
}

/** Leftovers no model may see: placeholders, unexpanded variables, unrendered templates. */
export const LEFTOVERS: { name: string; pattern: RegExp }[] = [
  { name: '<PARLEY_… placeholder', pattern: /<PARLEY_/ },
  { name: '${…} variable', pattern: /\$\{/ },
  { name: 'unrendered {{…}} template', pattern: /\{\{[^{}]*\}\}/ },
  { name: '[object Object]', pattern: /\[object Object\]/ },
  { name: 'the word undefined', pattern: /\bundefined\b/ },
];

/** What a model reads of a request: its messages, the tools offered (names, descriptions, schemas) and the response format. */
export function modelVisibleText(request: ScriptedRequestLog): string {
  const body = (request.body ?? {}) as { messages?: unknown; tools?: unknown; response_format?: unknown };
  return JSON.stringify([body.messages, body.tools ?? null, body.response_format ?? null]);
}

/** Each leftover found in a request, with a little context around it. */
export function leftoversIn(request: ScriptedRequestLog): string[] {
  const text = modelVisibleText(request);
  // The planner is taught the {{stepId.result}} syntax (as the suite-wide check allows: src/scripted-model/leftovers.ts).
  const taught = request.role === 'planner' ? text.replaceAll('{{stepId.result}}', '') : text;
  return LEFTOVERS.flatMap(({ name, pattern }) => {
    const m = pattern.exec(taught);
    return m ? [`${name}: …${taught.slice(Math.max(0, m.index - 80), m.index + 80)}…`] : [];
  });
}

/**
 * The prompt a request belongs to: its schema name for structured calls, the team part for dynamic
 * agents, else its model role (router, planner, verifier… are structured; specialists and the
 * synthesizer are not).
 */
export function promptKind(request: ScriptedRequestLog): string {
  if (request.schemaName) return request.schemaName;
  const text = modelVisibleText(request);
  const team = /<parley:team>\{\\"agent\\":\\"[^\\]*\\",\\"role\\":\\"(manager|worker)\\"/.exec(text);
  if (team) return `team_${team[1]}`;
  if (request.role === 'default') return 'direct_answer';
  return request.role ?? 'unknown';
}
