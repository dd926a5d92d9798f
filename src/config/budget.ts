/** The settings of budgets (docs/configuration.md, "Budgets"). */
import { positiveInt, positiveNumber } from './parsers.ts';
import type { Setting } from './setting.ts';

export const BUDGET_SETTINGS = [
  {
    env: 'PARLEY_RUN_MAX_TOKENS',
    at: 'budget.run.tokens',
    schema: positiveInt,
    default: '200000',
    description: 'Per-run token budget.',
  },
  {
    env: 'PARLEY_RUN_MAX_COST_USD',
    at: 'budget.run.costUsd',
    schema: positiveNumber,
    default: '1',
    description: 'Per-run cost budget in USD.',
  },
  {
    env: 'PARLEY_RUN_MAX_MODEL_CALLS',
    at: 'budget.run.modelCalls',
    schema: positiveInt,
    default: '60',
    description: 'Per-run model call budget.',
  },
  {
    env: 'PARLEY_RUN_MAX_TOOL_CALLS',
    at: 'budget.run.toolCalls',
    schema: positiveInt,
    default: '60',
    description: 'Per-run tool call budget.',
  },
  {
    env: 'PARLEY_RUN_MAX_WALL_MS',
    at: 'budget.run.wallTimeMs',
    schema: positiveInt,
    default: '600000',
    description: 'Per-run wall time budget.',
  },
  {
    env: 'PARLEY_CALLER_MAX_TOKENS',
    at: 'budget.caller.tokens',
    schema: positiveInt,
    default: '5000000',
    description: 'Tokens one caller (API key) may use per budget window.',
  },
  {
    env: 'PARLEY_CALLER_MAX_COST_USD',
    at: 'budget.caller.costUsd',
    schema: positiveNumber,
    default: '50',
    description: 'Cost one caller may incur per budget window.',
  },
  {
    env: 'PARLEY_CALLER_WINDOW_MS',
    at: 'budget.caller.windowMs',
    schema: positiveInt,
    default: '86400000',
    description: 'Length of the per-caller (and per-thread) budget window.',
  },
  {
    env: 'PARLEY_THREAD_MAX_TOKENS',
    at: 'budget.thread.tokens',
    schema: positiveInt,
    default: '1000000',
    description: 'Tokens the runs of one thread (one conversation of one caller) may use per budget window.',
  },
  {
    env: 'PARLEY_THREAD_MAX_COST_USD',
    at: 'budget.thread.costUsd',
    schema: positiveNumber,
    default: '10',
    description: 'Cost the runs of one thread may incur per budget window.',
  },
  {
    env: 'PARLEY_RATE_LIMIT_PER_MINUTE',
    at: 'budget.caller.runsPerMinute',
    schema: positiveInt,
    default: '120',
    description: 'Runs one caller may start per minute; more get 429 with Retry-After.',
  },
] as const satisfies readonly Setting[];
