/** The knowledge bench's records (bench/knowledge.ts, bench/knowledge-backends.ts): seeded, so every run writes the same. */
import type { RunRecord, SpecialistRecord, StepRecord } from '../../src/knowledge/store.ts';

export const STEPS = 8;
export const SPECIALISTS = 500;

export const WORDS = (
  'python typescript rust sql postgres schema index migration docker kubernetes ci pipeline deploy security audit ' +
  'vulnerability test pytest vitest documentation readme release notes debug stack trace memory leak performance ' +
  'profiling cache redis kafka queue api rest graphql auth oauth token frontend react css accessibility design ' +
  'architecture microservice monitoring metrics logging alert budget cost forecast revenue report spreadsheet'
).split(' ');

let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
export const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
export const phrase = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

export function specialist(i: number): SpecialistRecord {
  const domains = [pick(WORDS), pick(WORDS)];
  return {
    id: `spec-${i}`,
    name: `spec-${i}`,
    description: `Specialist for ${phrase(12)}.`,
    kind: 'prompt',
    domains,
    prompt: `You are specialist ${i}.`,
    endpoint: '',
    modelRole: 'specialist',
    tools: [],
    sourceId: 'skills:bench',
    available: true,
  };
}

export function runRecord(i: number, prefix = 'run'): RunRecord {
  const steps: StepRecord[] = Array.from({ length: STEPS }, (_, s) => ({
    id: `s${s}`,
    specialist: `spec-${Math.floor(rand() * 40)}`,
    objective: phrase(8),
    status: rand() < 0.9 ? 'succeeded' : 'failed',
    output: phrase(40),
    durationMs: Math.round(rand() * 5000),
    tokens: Math.round(rand() * 2000),
    costUsd: rand() * 0.01,
    toolCalls: [{ tool: 'filesystem/read_text_file', status: 'ok' }],
  }));
  return {
    id: `${prefix}-${i}`,
    threadId: `t-${i % 50}`,
    query: phrase(7),
    protocol: 'bench',
    callerId: 'bench',
    startedAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    durationMs: 10_000,
    status: 'completed',
    answer: phrase(60),
    tokens: steps.reduce((n, s) => n + s.tokens, 0),
    costUsd: 0.05,
    score: rand(),
    plan: {
      rationale: 'bench',
      steps: steps.map((s) => ({
        id: s.id,
        specialist: s.specialist,
        objective: s.objective,
        dependsOn: [],
        phase: 'execution' as const,
      })),
    },
    steps,
  };
}

export const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
