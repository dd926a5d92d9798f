/**
 * Who did what in a dynamic team, in plain words, for the verifier (nodes/verifier.ts): each agent, who
 * gave it its part, the task it was given, the tools it called and how it ended, and whose results the
 * answer was built from. The verifier judges the answer against the work behind it; it never has to echo
 * an id to read it.
 */
import type { GraphPlan } from '../planning/graph-plan.ts';
import type { StepOutcome } from '../run/step-outcome.ts';
import { rootManagerOf } from './manager-answer.ts';

const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

export function delegationLines(plan: GraphPlan, results: ReadonlyMap<string, StepOutcome>): string[] {
  const root = rootManagerOf(plan);
  const spawned = plan.steps.filter((s) => s.parentStepId !== undefined);
  if (!spawned.length) return [];
  const lines = spawned.map((s) => {
    const o = results.get(s.id);
    const tools = [...new Set((o?.lineage?.toolCalls ?? []).filter((t) => t.status === 'ok').map((t) => t.tool))];
    const used = tools.length ? `it called ${tools.join(', ')}` : 'it called no tool';
    const ended = !o ? 'it did not run' : o.status === 'succeeded' ? 'it finished' : `it ${o.status}`;
    return `- "${s.id}" (${s.manager ? 'a manager' : 'a worker'}, run by the ${s.specialist} specialist) was given by "${s.parentStepId}" the task: ${clip(s.objective, 300)} — ${used}; ${ended}.`;
  });
  if (root) {
    const direct = spawned.filter((s) => s.parentStepId === root).map((s) => `"${s.id}"`);
    lines.push(`- "${root}" (the manager) wrote the answer from the results of ${direct.join(', ') || 'no agent'}.`);
  }
  return lines;
}
