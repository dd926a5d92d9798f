/** Records tests build on: a small roster, tool/step/run factories, and a proven team seeded into a store. */
import type { RunRecord, SpecialistRecord, StepRecord, ToolRecord } from '../../src/knowledge/store.ts';
import type { GraphPlan } from '../../src/graph/planning/graph-plan.ts';
import type { KnowledgeStore } from '../../src/knowledge/store.ts';
import type { StoredRun } from '../../src/store/runs/run-store.ts';

export function specialist(id: string, description: string, extra: Partial<SpecialistRecord> = {}): SpecialistRecord {
  return {
    id,
    name: id,
    description,
    kind: 'prompt',
    domains: [],
    prompt: `You are ${id}.`,
    endpoint: '',
    modelRole: 'specialist',
    tools: [],
    sourceId: 'skills:test',
    available: true,
    ...extra,
  };
}

export const ROSTER: SpecialistRecord[] = [
  specialist('python-programmer', 'Writes and fixes Python code, scripts, packaging and pytest tests.', {
    domains: ['python', 'programming'],
  }),
  specialist('typescript-programmer', 'Writes TypeScript and Node.js code with strict types.', {
    domains: ['typescript', 'programming'],
  }),
  specialist('database', 'Designs SQL schemas, indexes, migrations and query tuning for Postgres.', {
    domains: ['database', 'sql'],
  }),
  specialist('devops', 'Docker, Kubernetes, CI pipelines and deployment automation.', {
    domains: ['devops', 'infrastructure'],
  }),
  specialist('writer', 'Writes clear documentation, READMEs and release notes.', { domains: ['writing', 'docs'] }),
  specialist('security', 'Reviews code for vulnerabilities, secrets handling and threat models.', {
    domains: ['security'],
  }),
];

export function tool(server: string, name: string, extra: Partial<ToolRecord> = {}): ToolRecord {
  return {
    id: `${server}/${name}`,
    server,
    name,
    description: `${name} on ${server}`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    annotations: { readOnlyHint: true },
    available: true,
    sourceId: `mcp:${server}`,
    ...extra,
  };
}

export function step(id: string, specialistId: string, extra: Partial<StepRecord> = {}): StepRecord {
  return {
    id,
    specialist: specialistId,
    objective: `objective of ${id}`,
    status: 'succeeded',
    output: `output of ${id}`,
    durationMs: 1200,
    tokens: 300,
    costUsd: 0.002,
    toolCalls: [],
    ...extra,
  };
}

let counter = 0;
export function run(query: string, steps: StepRecord[], extra: Partial<RunRecord> = {}): RunRecord {
  counter++;
  return {
    id: `run-${counter}-${Math.random().toString(36).slice(2, 8)}`,
    threadId: 'thread-1',
    query,
    protocol: 'test',
    callerId: 'tester',
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
    durationMs: 4000,
    status: 'completed',
    answer: `answer to ${query}`,
    tokens: steps.reduce((n, s) => n + s.tokens, 0),
    costUsd: 0.01,
    score: 0.9,
    plan: {
      rationale: 'test plan',
      steps: steps.map((s) => ({
        id: s.id,
        specialist: s.specialist,
        objective: s.objective,
        dependsOn: [],
        phase: 'execution' as const,
      })),
    },
    steps,
    ...extra,
  };
}

/**
 * Teaches the store a proven team for `query` by recording a successful run with `plan`, so the
 * router's stage 1 reuses exactly this plan: the way to give the engine an arbitrary DAG shape.
 */
export async function provenTeam(store: KnowledgeStore, query: string, plan: GraphPlan): Promise<void> {
  await store.recordRun({
    id: `seed-${Math.random().toString(36).slice(2)}`,
    threadId: 'seed',
    query,
    protocol: 'test',
    // The caller test runs have (none given: the one local caller): teams are reused within one caller only.
    callerId: 'anonymous',
    startedAt: new Date().toISOString(),
    durationMs: 1,
    status: 'completed',
    answer: 'seeded',
    tokens: 0,
    costUsd: 0,
    score: 0.95,
    plan,
    steps: plan.steps.map((s) => ({
      id: s.id,
      specialist: s.specialist,
      objective: s.objective,
      status: 'succeeded',
      output: 'ok',
      durationMs: 1,
      tokens: 0,
      costUsd: 0,
      toolCalls: [],
    })),
  });
}

/** A prompt specialist that keeps meeting notes with the fixture MCP server's tools, mounted as `notes`. */
export function notesKeeper(sourceId: string): SpecialistRecord {
  return {
    kind: 'prompt',
    prompt: 'You keep meeting notes in the notes server.',
    endpoint: '',
    modelRole: 'specialist',
    sourceId,
    available: true,
    id: 'notes-keeper',
    name: 'Notes keeper',
    description: 'Keeps meeting notes: saves and reads notes',
    domains: ['notes'],
    tools: ['notes/write_note', 'notes/read_note'],
  };
}

/** A run as the run store holds it while it runs (caller c1, thread `t-<id>`), for tests of the store path. */
export const runningRecord = (id: string): StoredRun => ({
  id,
  callerId: 'c1',
  threadId: `t-${id}`,
  status: 'running',
  request: { query: 'q', protocol: 'test' },
  createdAt: 1,
  updatedAt: 1,
});
