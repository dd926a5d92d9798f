/**
 * Two runs side by side (GET /api/runs/compare): plan, steps and outputs, verifier scores, model
 * calls, tokens, cost, wall time, the answer — and a list of what differs, field by field.
 */
import type { GraphEvent, GraphEventOf, RunEnding } from '../run/events.ts';
import { finishedStep, type CarriedStep, type CheckpointStep } from './checkpoints.ts';

export interface RunSummary {
  runId: string;
  query: string;
  mode?: string;
  forkedFrom?: { runId: string; checkpoint: string };
  replayOf?: string;
  status: string;
  route?: string;
  plan: { id: string; specialist: string; objective: string; dependsOn: string[]; model?: string }[];
  planRounds: number;
  /** Every step's outcome; a fork's steps carried from its parent (never run in it) say `carried`. */
  steps: (Omit<CheckpointStep, 'objective'> & { carried?: true })[];
  verification: { round: number; score: number; next: string }[];
  answer?: string;
  error?: string;
  usage?: RunEnding['usage'];
  /** The models the steps ran on (from their lineage), in the order first seen. */
  stepModels: string[];
  durationMs?: number;
}

export interface Difference {
  field: string;
  a: unknown;
  b: unknown;
}

export function summarize(events: readonly GraphEvent[], carried: readonly CarriedStep[] = []): RunSummary {
  const started = events.find((e): e is GraphEventOf<'run.started'> => e.type === 'run.started');
  const route = events.findLast((e): e is GraphEventOf<'route.decided'> => e.type === 'route.decided');
  const plans = events.filter((e): e is GraphEventOf<'plan.ready'> => e.type === 'plan.ready');
  const finished = events.findLast((e): e is GraphEventOf<'run.finished'> => e.type === 'run.finished');
  const steps = new Map<string, RunSummary['steps'][number]>(
    carried.map(({ finished: { objective: _objective, ...step } }) => [step.stepId, { ...step, carried: true }]),
  );
  for (const e of events) {
    if (e.type !== 'step.finished') continue;
    steps.delete(e.stepId);
    steps.set(e.stepId, finishedStep(e));
  }
  const answer =
    finished?.answer ??
    (events.some((e) => e.type === 'answer.delta')
      ? events.map((e) => (e.type === 'answer.delta' ? e.text : '')).join('')
      : undefined);
  return {
    runId: events[0]?.runId ?? '',
    query: started?.query ?? '',
    ...(started?.mode ? { mode: started.mode } : {}),
    ...(started?.forkedFrom ? { forkedFrom: started.forkedFrom } : {}),
    ...(started?.replayOf ? { replayOf: started.replayOf } : {}),
    status: finished?.status ?? 'running',
    ...(route ? { route: route.stage } : {}),
    plan: (plans.at(-1)?.plan.steps ?? []).map((s) => ({
      id: s.id,
      specialist: s.specialist,
      objective: s.objective,
      dependsOn: s.dependsOn,
      ...(s.model ? { model: s.model } : {}),
    })),
    planRounds: plans.length,
    steps: [...steps.values()],
    verification: events
      .filter((e): e is GraphEventOf<'verify.result'> => e.type === 'verify.result')
      .map((e) => ({ round: e.round, score: e.score, next: e.next })),
    ...(answer !== undefined ? { answer } : {}),
    ...(finished?.error ? { error: finished.error } : {}),
    ...(finished ? { usage: finished.usage, durationMs: finished.durationMs } : {}),
    stepModels: [...new Set([...steps.values()].flatMap((s) => (s.model && !s.carried ? [s.model] : [])))],
  };
}

const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/** What differs between two runs, field by field (steps by id; usage by counter). Wall time always differs a little: it is listed when it does. */
export function differences(a: RunSummary, b: RunSummary): Difference[] {
  const out: Difference[] = [];
  const check = (field: string, x: unknown, y: unknown) => {
    if (!same(x, y)) out.push({ field, a: x, b: y });
  };
  check('query', a.query, b.query);
  check('status', a.status, b.status);
  check('route', a.route, b.route);
  check('planRounds', a.planRounds, b.planRounds);
  check(
    'plan',
    a.plan.map((s) => `${s.id}:${s.specialist}`),
    b.plan.map((s) => `${s.id}:${s.specialist}`),
  );
  const ids = [...new Set([...a.steps.map((s) => s.stepId), ...b.steps.map((s) => s.stepId)])];
  for (const id of ids) {
    const x = a.steps.find((s) => s.stepId === id);
    const y = b.steps.find((s) => s.stepId === id);
    if (!x || !y) {
      out.push({ field: `steps.${id}`, a: x ? 'ran' : 'absent', b: y ? 'ran' : 'absent' });
      continue;
    }
    check(`steps.${id}.status`, x.status, y.status);
    check(`steps.${id}.output`, x.output, y.output);
    // A carried step ran in the parent, on the parent's model: only steps both runs ran compare models.
    if (!x.carried && !y.carried) check(`steps.${id}.model`, x.model, y.model);
  }
  check(
    'verification.scores',
    a.verification.map((v) => v.score),
    b.verification.map((v) => v.score),
  );
  check('answer', a.answer, b.answer);
  check('stepModels', a.stepModels, b.stepModels);
  for (const key of ['modelCalls', 'toolCalls', 'inputTokens', 'outputTokens', 'costUsd'] as const)
    check(`usage.${key}`, a.usage?.[key], b.usage?.[key]);
  check('durationMs', a.durationMs, b.durationMs);
  return out;
}
