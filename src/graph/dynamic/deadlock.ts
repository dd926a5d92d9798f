/**
 * Deadlock: every agent still running waits (on the agents it spawned, or on a message) and nothing
 * else is left to run, so no wait can ever end. Names the cycle of waits when there is one.
 */
import { findCycle } from '../planning/find-cycle.ts';

export type AgentWait = { kind: 'children'; on: string[] } | { kind: 'message'; from?: string };

/** What each running agent waits on; an agent absent from `waits` is working. */
export interface WaitState {
  running: string[];
  waits: ReadonlyMap<string, AgentWait>;
  /** Steps ready to run but not started: they may still end a wait. */
  queued: number;
}

/** The deadlock's description, or undefined while some agent can still go on. */
export function findDeadlock(state: WaitState): string | undefined {
  const { running, waits } = state;
  if (state.queued > 0 || running.length === 0 || running.some((id) => !waits.has(id))) return undefined;
  const live = new Set(running);
  const edges = (id: string): string[] => {
    const wait = waits.get(id)!;
    if (wait.kind === 'children') return wait.on.filter((c) => live.has(c));
    if (wait.from !== undefined) return live.has(wait.from) ? [wait.from] : [];
    return running.filter((other) => other !== id);
  };
  const cycle = findCycle(running, edges);
  const shown = cycle ?? running;
  const said = shown.map((id) => `${id} ${describe(waits.get(id)!, live)}`);
  return `deadlock: ${said.join('; ')}${cycle ? ` (a cycle: ${[...cycle, cycle[0]].join(' → ')})` : ''}. No agent can go on, so the run ends.`;
}

function describe(wait: AgentWait, live: ReadonlySet<string>): string {
  if (wait.kind === 'children') return `waits for the agents it spawned (${wait.on.join(', ')})`;
  if (wait.from === undefined) return 'waits for a message from any agent';
  return live.has(wait.from)
    ? `waits for a message from ${wait.from}`
    : `waits for a message from ${wait.from}, which is no longer running`;
}
