/**
 * How much one model call may reserve: its estimated input plus its maximum output, where the
 * maximum output is the configured max tokens (DEFAULT_MAX_OUTPUT_TOKENS when none is set) capped
 * by what the budgets have left. The call is then sent with that max, so a call can never spend
 * more than it reserved (beyond the input estimate's error) and no budget is overrun by a call in
 * flight. A priced catalog is required for cost: a model without a price is refused.
 */
import type { PriceCatalog } from '../../llm/prices.ts';
import type { ModelRole } from '../../llm/types.ts';
import { BudgetExceededError } from './budget-error.ts';

/** The max output reserved (and sent) for a call when neither the request nor the config sets one. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;

/**
 * The roles whose answer is small, sized to it (with room for a reasoning model's thinking, which counts
 * as output): the router answers a two-field JSON, the judge two fields, the verifier a score, notes and
 * ids, a reviewer a ranking and a critique per answer. Every other role writes text or plans of any
 * length and keeps DEFAULT_MAX_OUTPUT_TOKENS. A configured max (PARLEY_MODEL_MAX_TOKENS or the role's
 * own PARLEY_MODEL_<ROLE>_MAX_TOKENS) wins over these.
 */
export const ROLE_MAX_OUTPUT_TOKENS: Partial<Record<ModelRole, number>> = {
  router: 2048,
  judge: 2048,
  verifier: 4096,
  council_reviewer: 4096,
};

/** A role's max output when nothing is configured. */
export const defaultMaxOutputTokens = (role: ModelRole): number =>
  ROLE_MAX_OUTPUT_TOKENS[role] ?? DEFAULT_MAX_OUTPUT_TOKENS;

/** A call to a model the price catalog does not know: its cost, and so every cost budget, would be unbounded. */
export class UnpricedModelError extends BudgetExceededError {
  override name = 'UnpricedModelError';
  constructor(readonly model: string) {
    super(
      `model "${model}" has no price in the price catalog, so cost budgets cannot be enforced: add it to prices.json ` +
        '(or the file PARLEY_PRICES_FILE names; a price of 0 is fine for a local model), or list it in PARLEY_FREE_MODELS',
    );
  }
}

export interface CallPlan {
  /** Tokens to reserve: the input estimate plus outputTokens. */
  tokens: number;
  /** The call's max output: send it as max_tokens. */
  outputTokens: number;
  costUsd: number;
}

export function planCall(input: {
  model: string;
  inputTokens: number;
  maxOutputTokens: number;
  /** What the run, caller and thread budgets have left (calls in flight deducted). */
  headroom: { tokens: number; costUsd: number };
  /** Without a catalog only tokens are capped (cost is not reserved). */
  prices?: Pick<PriceCatalog, 'cost'>;
}): CallPlan {
  const { model, inputTokens, headroom } = input;
  let output = Math.min(input.maxOutputTokens, Math.floor(headroom.tokens - inputTokens));
  const inputCost = input.prices ? input.prices.cost(model, { inputTokens, outputTokens: 0, cachedTokens: 0 }) : 0;
  if (inputCost === null) throw new UnpricedModelError(model);
  const perOutputToken = input.prices
    ? (input.prices.cost(model, { inputTokens: 0, outputTokens: 1_000_000, cachedTokens: 0 }) ?? 0) / 1_000_000
    : 0;
  if (perOutputToken > 0)
    output = Math.min(output, Math.floor(((headroom.costUsd - inputCost) / perOutputToken) * (1 - 1e-9)));
  // Room for not even one output token: reserve one anyway, and the reservation is refused with the budget's own message.
  const outputTokens = Math.max(1, output);
  return { tokens: inputTokens + outputTokens, outputTokens, costUsd: inputCost + outputTokens * perOutputToken };
}
