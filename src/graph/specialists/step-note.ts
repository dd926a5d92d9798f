/**
 * What a tool-loop step is told about its place in the run and how its tools behave: a planned step
 * does only its objective (other steps do the rest), and a model with tools learns that its calls run
 * one after another (tool-loop.ts awaits each before the next) and how a denied approval reads (the
 * text callOneTool returns for it).
 */
import { DENIED_BY_HUMAN, DENIED_TAIL } from './tool-loop.ts';

export function stepNote(planned: boolean, hasTools: boolean): string {
  const place = planned
    ? "\n\nYou run one step of a plan. Your objective is your job: do it fully, and only it. The user's request is there for context; other steps may do the rest of it. Your answer goes to the later steps that use it and to the writer of the final answer, not straight to the user: report what you did and found, plainly."
    : '';
  // A spawned agent runs on after spawn_agent returns (dynamic/agent-tools.ts): spawn_agent's wait says when its result comes.
  const spawned = planned
    ? ''
    : ` (an agent you spawn works on meanwhile; spawn_agent's "wait" says when its result comes)`;
  const tools = hasTools
    ? `\n\nSeveral tool calls in one answer run one after another, in the order you give them, each finishing before the next starts; every result comes back to you before your next turn${spawned}. A tool that changes things (writes, deletes, runs or sends something) may wait for a human's approval first. A denied call comes back as a tool result that starts "${DENIED_BY_HUMAN}" (or says it was not approved, e.g. by timeout) and ends "${DENIED_TAIL}": do not retry a denied call; say in your answer what was denied and what is therefore not done.`
    : '';
  return place + tools;
}
