/** The L0 nodes by name: what runs at each node of the graph whose edges are in ../edges.ts. */
import type { NodeName } from '../events.ts';
import type { Next } from '../edges.ts';
import type { EngineContext, RunState } from '../state.ts';
import { usageGuard } from './usage-guard.ts';
import { router } from './router.ts';
import { directAnswer } from './direct-answer.ts';
import { memory } from './memory.ts';
import { dispatcher } from './dispatcher.ts';
import { joiner } from './joiner.ts';
import { verifier } from './verifier.ts';
import { planner } from './planner.ts';
import { synthesizer } from './synthesizer.ts';
import { council } from './council.ts';

/** An L0 node: an async function of the run that names the next node, one of its edges. */
export type NodeFn<N extends NodeName = NodeName> = (run: RunState, ctx: EngineContext) => Promise<Next<N>>;

export const NODES: { [N in NodeName]: NodeFn<N> } = {
  usage_guard: usageGuard,
  router,
  direct_answer: directAnswer,
  memory,
  dispatcher,
  research_joiner: joiner,
  execution_joiner: joiner,
  verifier,
  planner,
  synthesizer,
  council,
};
