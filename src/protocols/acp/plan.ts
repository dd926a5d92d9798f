/**
 * The ACP plan view of a run: one entry per GraphPlan step, its status following step events.
 * ACP clients replace the whole plan on every `plan` update, so each change yields the full entry list.
 * ACP has no "failed" plan status: a step that ended without success is shown completed, its content
 * saying how it ended, and its real status in `_meta.parley.stepStatus`.
 */
import type { PlanEntry } from '@agentclientprotocol/sdk';
import type { GraphPlan, StepStatus } from '../../graph/contract.ts';

interface TrackedStep {
  content: string;
  priority: PlanEntry['priority'];
  status: PlanEntry['status'];
  stepStatus?: StepStatus;
}

export class PlanView {
  readonly #steps = new Map<string, TrackedStep>();

  /** A new (or re-planned) GraphPlan replaces the view; steps already finished keep their status. */
  setPlan(plan: GraphPlan): PlanEntry[] {
    const previous = new Map(this.#steps);
    this.#steps.clear();
    for (const step of plan.steps) {
      const kept = previous.get(step.id);
      this.#steps.set(step.id, {
        content: `${step.specialist}: ${step.objective}`,
        // Research feeds everything after it, so it is what the user most needs to see progress on.
        priority: step.phase === 'research' ? 'high' : 'medium',
        status: kept?.status === 'completed' && kept.stepStatus === 'succeeded' ? 'completed' : 'pending',
        ...(kept?.stepStatus === 'succeeded' ? { stepStatus: kept.stepStatus } : {}),
      });
    }
    return this.entries();
  }

  /** A step an agent spawned joins the plan as it appears (dynamic teams), below the agent that spawned it. */
  spawned(step: { stepId: string; parentStepId: string; specialist: string; objective: string }): PlanEntry[] {
    this.#steps.set(step.stepId, {
      content: `${step.specialist} (spawned by ${step.parentStepId}): ${step.objective}`,
      priority: 'medium',
      status: 'pending',
    });
    return this.entries();
  }

  /** Marks a step running; undefined when the step is not in the plan (nothing to update). */
  started(stepId: string): PlanEntry[] | undefined {
    const step = this.#steps.get(stepId);
    if (!step) return undefined;
    step.status = 'in_progress';
    delete step.stepStatus;
    return this.entries();
  }

  finished(stepId: string, status: StepStatus): PlanEntry[] | undefined {
    const step = this.#steps.get(stepId);
    if (!step) return undefined;
    step.status = 'completed';
    step.stepStatus = status;
    return this.entries();
  }

  get size(): number {
    return this.#steps.size;
  }

  entries(): PlanEntry[] {
    return [...this.#steps.values()].map((s) => ({
      content: s.stepStatus && s.stepStatus !== 'succeeded' ? `${s.content} (${s.stepStatus})` : s.content,
      priority: s.priority,
      status: s.status,
      ...(s.stepStatus ? { _meta: { parley: { stepStatus: s.stepStatus } } } : {}),
    }));
  }
}
