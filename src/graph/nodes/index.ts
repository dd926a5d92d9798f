/** The L0 nodes by name: what runs at each node of the graph whose edges are in ../run/edges.ts. */
import type { NodeName } from '../run/events.ts';
import type { Decision, Next } from '../run/edges.ts';
import type { EngineContext, NodeRun } from '../run/state.ts';
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

/** An L0 node: an async function of the run that says where the run goes next and what it decided. */
export type NodeFn<N extends NodeName = NodeName> = (run: NodeRun, ctx: EngineContext) => Promise<Decision<Next<N>>>;

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
