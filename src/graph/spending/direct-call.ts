/**
 * A model call outside any run (the OpenAI-compatible passthrough) goes through the same gate as a
 * run's calls: the caller's rate limit (each call counts as a start), the caller's and thread's
 * window budgets by reservation (planCall: input plus capped max output), the price rule, and the
 * charge of the real usage afterwards. The adapter only forwards the body and reports the usage.
 */
import type { ModelUsage } from '../../llm/types.ts';
import { DEFAULT_MAX_OUTPUT_TOKENS, planCall, UnpricedModelError } from './call-budget.ts';
import type { PriceCatalog } from '../../llm/prices.ts';
import type { ModelRole } from '../../llm/types.ts';
import type { CallerLedger } from './ledger.ts';
import { BudgetExceededError, estimateTokens } from './usage.ts';

export interface DirectCallRequest {
  callerId: string;
  threadId?: string;
  model: string;
  /** The texts of the request's messages (for the input estimate). */
  texts: string[];
  /** The client's own max output, if it set one (else the configured one); budgets may lower it. */
  maxTokens?: number;
}

export type DirectCall =
  | {
      ok: true;
      /** Send the call with this max output. */
      maxTokens: number;
      /** Charges the call's real usage (without one, the reservation is charged: unknown is not free). */
      settle(usage: Pick<ModelUsage, 'model' | 'inputTokens' | 'outputTokens' | 'cachedTokens'> | undefined): void;
      /** The call never reached the model: nothing is charged. */
      release(): void;
    }
  | { ok: false; reason: 'budget' | 'unpriced'; error: string; retryAfterMs?: number };

/** What a direct call reads of the engine's context (EngineContext has them; spending/ sits below run/). */
export interface DirectCallContext {
  ledger: CallerLedger;
  prices?: Pick<PriceCatalog, 'cost'>;
  maxOutputTokens: (role: ModelRole) => number | undefined;
}

export function admitDirectCall(ctx: DirectCallContext, request: DirectCallRequest, onCharged: () => void): DirectCall {
  const { ledger } = ctx;
  const { callerId, threadId, model } = request;
  let plan;
  try {
    ledger.admitRun(callerId, threadId);
    const inputTokens = estimateTokens(request.texts);
    plan = planCall({
      model,
      inputTokens,
      maxOutputTokens: request.maxTokens ?? ctx.maxOutputTokens('default') ?? DEFAULT_MAX_OUTPUT_TOKENS,
      headroom: ledger.headroom(callerId, threadId),
      prices: ctx.prices,
    });
    ledger.checkSpend(callerId, plan.tokens, plan.costUsd, threadId);
  } catch (err) {
    if (err instanceof UnpricedModelError) return { ok: false, reason: 'unpriced', error: err.message };
    if (err instanceof BudgetExceededError)
      return { ok: false, reason: 'budget', error: err.message, retryAfterMs: err.retryAfterMs };
    throw err;
  }
  const reserved = plan;
  ledger.reserve(callerId, threadId, reserved.tokens, reserved.costUsd);
  let open = true;
  const end = (usage: ModelUsage | undefined) => {
    if (!open) return;
    open = false;
    ledger.release(callerId, threadId, reserved.tokens, reserved.costUsd);
    if (!usage) return;
    ledger.charge(callerId, usage, threadId);
    onCharged();
  };
  return {
    ok: true,
    maxTokens: reserved.outputTokens,
    settle: (usage) => {
      if (!usage)
        return end({
          model,
          inputTokens: reserved.tokens - reserved.outputTokens,
          outputTokens: reserved.outputTokens,
          cachedTokens: 0,
          costUsd: reserved.costUsd,
        });
      const costUsd = ctx.prices ? (ctx.prices.cost(usage.model, usage) ?? ctx.prices.cost(model, usage)) : 0;
      end({ ...usage, costUsd: costUsd ?? reserved.costUsd });
    },
    release: () => end(undefined),
  };
}
