/** An L0 node: an async function of the run that names the next node ('end' stops the loop). */
import type { NodeName } from '../events.ts';
import type { EngineContext, RunState } from '../state.ts';

export type NodeResult = NodeName | 'end';
export type NodeFn = (run: RunState, ctx: EngineContext) => Promise<NodeResult>;
