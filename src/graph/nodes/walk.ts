/**
 * The L0 loop: node → next node, each node raced against the run's abort signal, every move checked
 * against the edge table (../run/edges.ts) and counted by the watchdog (engine.maxTransitions).
 */
import type { NodeName } from '../run/events.ts';
import { FIRST_NODE, isEdge } from '../run/edges.ts';
import { emit, type EngineContext, type RunOutcome, type RunState } from '../run/state.ts';
import { applyUpdate } from '../run/update.ts';
import { NODES, type NodeFn } from './index.ts';

/** Walks the run to its end; the outcome a node (or the watchdog) decided, which the engine alone sets. */
export async function walkNodes(run: RunState, ctx: EngineContext): Promise<RunOutcome | undefined> {
  const signal = run.abort.signal;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  // Raced against each node below, which handles the rejection; this only keeps a race never run from being unhandled.
  aborted.catch(() => undefined);
  try {
    let node: NodeName = FIRST_NODE;
    for (let transitions = 1; ; transitions++) {
      if (signal.aborted) throw signal.reason;
      if (transitions > ctx.config.engine.maxTransitions) {
        return {
          status: 'failed',
          error: `watchdog: the run made more than ${ctx.config.engine.maxTransitions} node transitions (last node: ${node})`,
        };
      }
      run.node = node;
      emit(run, { type: 'node.started', node });
      const t0 = ctx.now();
      const current: NodeName = node;
      const work = ctx.span(`node ${current}`, { 'parley.run_id': run.id, 'parley.node': current }, () =>
        (NODES[current] as NodeFn)(run, ctx),
      );
      const { next, update } = await Promise.race([work, aborted]).catch(async (err: unknown) => {
        if (signal.aborted) await keepFinishedUpdate(run, work);
        throw err;
      });
      // The types hold every node to its row of the edge table; this holds a node that casts around them.
      if (!isEdge(current, next)) throw new Error(`node ${current} went to ${String(next)}, not one of its edges`);
      let outcome: RunOutcome | undefined;
      if (update) {
        const { outcome: said, ...decided } = update;
        applyUpdate(run, decided);
        outcome = said;
      }
      emit(run, { type: 'node.finished', node: current, durationMs: ctx.now() - t0, next });
      if (outcome) return outcome;
      if (next === 'end' || run.outcome) return undefined;
      node = next;
    }
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A cancel that lands as a node finishes (a consumer cancelling on the node's last event, e.g. verify.result)
 * can win the race while the node's promise is still a few microtasks from settling. The node did its work
 * and its events told clients so: its update stands (the run still ends cancelled, its outcome ignored).
 * Waits one turn of the event loop at most, so a node still working (a model call the abort cuts short) is
 * not waited for.
 */
async function keepFinishedUpdate(run: RunState, work: Promise<Awaited<ReturnType<NodeFn>>>): Promise<void> {
  const turn = new Promise<undefined>((resolve) => setImmediate(resolve, undefined));
  const done = await Promise.race([work.catch(() => undefined), turn]);
  if (!done?.update) return;
  const { outcome: _outcome, ...decided } = done.update;
  applyUpdate(run, decided);
}
