/**
 * Team progress as AG-UI activity messages: each plan round is one activity message
 * (`activityType: "parley_team"`) the client keeps in its message list, beside the conversation,
 * so a UI can render the team as its own widget. ACTIVITY_SNAPSHOT when a round's plan is ready
 * (or when a resumed stream begins with a plan already under way), then ACTIVITY_DELTA (RFC 6902,
 * fast-json-patch) as steps start, finish or are spawned and as agents message each other.
 * The same facts are in `state.parley` (STATE_DELTA); the activity is the display-oriented copy.
 */
import { EventType, type BaseEvent } from '@ag-ui/core';
import jsonPatch from 'fast-json-patch';
import type { RunView, StepView } from './state.ts';

export const TEAM_ACTIVITY = 'parley_team';

export interface TeamMember {
  stepId: string;
  specialist: string;
  objective: string;
  status: StepView['status'];
  attempt: number;
  dependsOn: string[];
  parentStepId?: string;
  role?: 'manager' | 'worker';
  error?: string;
}

export interface TeamActivity {
  round: number;
  rationale: string;
  members: TeamMember[];
  /** Dynamic teams: messages between agents, newest last (the state's bounded log). */
  messages: { from: string; to: string; preview: string }[];
}

/** The activity message id of a run's plan round (stable across streams of the same run). */
export const teamActivityId = (engineRunId: string, round: number) => `${engineRunId}:team:${round}`;

/** The team's content as the client sees it (step outputs stay in state.parley: they can be long). */
export function teamActivity(view: RunView): TeamActivity | undefined {
  if (!view.plan) return undefined;
  return {
    round: view.plan.round,
    rationale: view.plan.rationale,
    members: view.plan.steps.map((s) => ({
      stepId: s.id,
      specialist: s.specialist,
      objective: s.objective,
      status: s.status,
      attempt: s.attempt,
      dependsOn: s.dependsOn,
      ...(s.parentStepId ? { parentStepId: s.parentStepId } : {}),
      ...(s.role ? { role: s.role } : {}),
      ...(s.error !== undefined ? { error: s.error } : {}),
    })),
    messages: view.team?.messages ?? [],
  };
}

/** The whole activity of the current round, or nothing before a plan exists. */
export function teamSnapshot(view: RunView, at: number): BaseEvent[] {
  const content = teamActivity(view);
  if (!content) return [];
  return [
    {
      type: EventType.ACTIVITY_SNAPSHOT,
      messageId: teamActivityId(view.runId, content.round),
      activityType: TEAM_ACTIVITY,
      content,
      timestamp: at,
    } as BaseEvent,
  ];
}

/** What changed in the team between two states: a snapshot for a new round, else a delta (or nothing). */
export function teamChange(before: RunView, after: RunView, at: number): BaseEvent[] {
  const prev = teamActivity(before);
  const next = teamActivity(after);
  if (!next) return [];
  if (!prev || prev.round !== next.round) return teamSnapshot(after, at);
  const patch = jsonPatch.compare(prev, next);
  if (!patch.length) return [];
  return [
    {
      type: EventType.ACTIVITY_DELTA,
      messageId: teamActivityId(after.runId, next.round),
      activityType: TEAM_ACTIVITY,
      patch,
      timestamp: at,
    } as BaseEvent,
  ];
}
