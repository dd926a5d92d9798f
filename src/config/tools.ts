/** The settings of tools and approvals (docs/configuration.md, "Tools and approvals"). */
import { z } from 'zod';
import { positiveInt } from './parsers.ts';
import type { Setting } from './setting.ts';

export const TOOL_SETTINGS = [
  {
    env: 'PARLEY_APPROVAL_POLICY',
    at: 'approvals.policy',
    schema: z.enum(['annotations', 'always', 'never']),
    default: 'annotations',
    description: 'Which tool calls need a human: by MCP annotations and config, always, or never.',
  },
  {
    env: 'PARLEY_APPROVAL_TIMEOUT_MS',
    at: 'approvals.timeoutMs',
    schema: positiveInt,
    default: '300000',
    description:
      "How long an approval waits before the default decision applies. One request per tool call; the wait counts against the run's wall time, not the step's or tool's timeout.",
  },
  {
    env: 'PARLEY_APPROVAL_DEFAULT',
    at: 'approvals.defaultDecision',
    schema: z.enum(['deny', 'accept']),
    default: 'deny',
    description: 'Decision applied when an approval times out.',
  },
  {
    env: 'PARLEY_TOOLS_CONNECT',
    at: 'tools.connect',
    schema: z.enum(['lazy', 'eager']),
    default: 'lazy',
    description: 'Connect MCP servers on first use, or all at start.',
  },
  {
    env: 'PARLEY_TOOL_TIMEOUT_MS',
    at: 'tools.timeoutMs',
    schema: positiveInt,
    default: '60000',
    description: 'Default tool call timeout (per server/tool `timeoutMs` in mcp_config.json wins).',
  },
  {
    env: 'PARLEY_BREAKER_THRESHOLD',
    at: 'tools.breakerThreshold',
    schema: positiveInt,
    default: '5',
    description: "Consecutive failures that open a server's circuit breaker.",
  },
  {
    env: 'PARLEY_BREAKER_COOLDOWN_MS',
    at: 'tools.breakerCooldownMs',
    schema: positiveInt,
    default: '30000',
    description: 'How long an open breaker fails fast before one trial call.',
  },
  {
    env: 'PARLEY_TOOL_RESULT_MAX_CHARS',
    at: 'tools.resultMaxChars',
    schema: positiveInt,
    default: '20000',
    description:
      'Tool results longer than this are truncated for the model and in the tool.finished event; the rest is not kept.',
  },
] as const satisfies readonly Setting[];
