/** The settings of the engine and of threads (docs/configuration.md, "Engine" and "Threads"). */
import { z } from 'zod';
import { MODEL_ROLES } from '../llm/types.ts';
import { nonNegativeInt, positiveInt, timeZone } from './parsers.ts';
import type { Setting } from './setting.ts';

export const ENGINE_SETTINGS = [
  {
    env: 'PARLEY_STEP_CONCURRENCY',
    at: 'engine.stepConcurrency',
    schema: positiveInt,
    default: '8',
    description: 'Steps of one run that may run at once.',
  },
  {
    env: 'PARLEY_STEP_TIMEOUT_MS',
    at: 'engine.stepTimeoutMs',
    schema: positiveInt,
    default: '120000',
    description:
      'Default timeout of one step (a plan step may set its own). Time the step spends waiting for a human (an approval) does not count.',
  },
  {
    env: 'PARLEY_MAX_TRANSITIONS',
    at: 'engine.maxTransitions',
    schema: positiveInt,
    default: '50',
    description: 'Watchdog: node transitions before a run is failed.',
  },
  {
    env: 'PARLEY_MAX_VERIFY_ROUNDS',
    at: 'engine.maxVerifyRounds',
    schema: positiveInt,
    default: '2',
    description: 'Verifier rounds (retry or re-plan) before the best result is synthesized as is.',
  },
  {
    env: 'PARLEY_REPLAN_ON_FAILURE',
    at: 'engine.replanOnFailure',
    schema: z.stringbool(),
    default: 'true',
    description:
      'When a step fails and steps depending on it cannot run, re-plan the remaining part at once (finished steps kept) instead of waiting for the verifier; at most PARLEY_MAX_VERIFY_ROUNDS plans per run this way. false: the verifier decides.',
  },
  {
    env: 'PARLEY_TOOL_LOOP_MAX_ITERATIONS',
    at: 'engine.toolLoopMaxIterations',
    schema: positiveInt,
    default: '8',
    description: "Model turns of a prompt specialist's tool loop.",
  },
  {
    env: 'PARLEY_DYNAMIC_MAX_DEPTH',
    at: 'engine.dynamic.maxDepth',
    schema: positiveInt,
    default: '3',
    description:
      "Dynamic teams: how deep agents may spawn agents (a run's first manager is depth 0; its workers depth 1).",
  },
  {
    env: 'PARLEY_DYNAMIC_MAX_NODES',
    at: 'engine.dynamic.maxNodes',
    schema: positiveInt,
    default: '24',
    description: 'Dynamic teams: the most steps one run may have, planned and spawned together.',
  },
  {
    env: 'PARLEY_DYNAMIC_MAX_ITERATIONS',
    at: 'engine.dynamic.maxIterations',
    schema: positiveInt,
    default: '10',
    description: "Dynamic teams: model turns of one agent's loop (think, act, observe).",
  },
  {
    env: 'PARLEY_DYNAMIC_NODE_TIMEOUT_MS',
    at: 'engine.dynamic.nodeTimeoutMs',
    schema: positiveInt,
    default: '120000',
    description:
      'Dynamic teams: timeout of one agent. Time it waits for the agents it spawned, or for a human, does not count.',
  },
  {
    env: 'PARLEY_STREAM_REASONING',
    at: 'engine.streamReasoning',
    schema: z.stringbool(),
    default: 'false',
    description:
      "Stream the model's reasoning (reasoning_content / reasoning fields) as model.thought events (ACP agent_thought_chunk, AG-UI REASONING_* events); a request may turn it on or off for its run.",
  },
  {
    env: 'PARLEY_TIMEZONE',
    at: 'engine.timeZone',
    schema: timeZone,
    default: 'UTC',
    description:
      'The time zone of the date every model is told ("Today is Thursday 2026-11-26 (time zone UTC)." at the end of each role\'s system prompt): an IANA name such as Europe/Paris. Set it to your users\' zone when "today" and "tomorrow" should be theirs.',
  },
  {
    env: 'PARLEY_EVENT_BUFFER',
    at: 'engine.eventBuffer',
    schema: positiveInt,
    default: '2000',
    description: 'Events buffered per slow consumer before it is detached.',
  },
  {
    env: 'PARLEY_RUN_RETENTION_MS',
    at: 'engine.runRetentionMs',
    schema: positiveInt,
    default: '600000',
    description: "How long a finished run's events stay replayable (SSE Last-Event-ID, /api/runs/:id/events).",
  },
  {
    env: 'PARLEY_RUN_RETENTION_MAX',
    at: 'engine.runRetentionMax',
    schema: nonNegativeInt,
    default: '1000',
    description:
      "How many finished runs stay replayable at most; beyond it the oldest finished run of the caller holding the most is dropped first, so one caller's runs never push out another's while it holds fewer (bounds the memory retention takes). A request refused before it starts (429) is not a run and does not count.",
  },
  {
    env: 'PARLEY_RUN_RETENTION_MB',
    at: 'engine.runRetentionBytes',
    // Given in MiB, kept in bytes: what retention compares with.
    schema: nonNegativeInt.transform((mb) => mb * 1024 * 1024),
    default: '32',
    description:
      "Heap, in MiB, that finished runs' event logs may keep: with a run store a finished run is served from the store and leaves memory at once (only a run whose events the store could not commit stays), without one its log stays in memory within this budget, the oldest dropped first.",
  },
  {
    env: 'PARLEY_THREAD_HISTORY_TOKENS',
    at: 'engine.threadHistoryTokens',
    schema: positiveInt,
    default: '4000',
    description:
      "Tokens of a thread's history given to each model call of a run (recent turns verbatim, older ones summarised, the rest left out).",
  },
  {
    env: 'PARLEY_THREAD_RECENT_TURNS',
    at: 'engine.threadRecentTurns',
    schema: nonNegativeInt,
    default: '4',
    description:
      'Newest turns of a thread given verbatim (when they fit the history budget); older turns are summarised.',
  },
  {
    env: 'PARLEY_THREAD_READ_RETRY_MS',
    at: 'engine.threadReadRetryMs',
    schema: positiveInt,
    default: '20000',
    description:
      "How long a follow-up run retries reading its thread when the store fails (a restarting database) before it fails naming the thread; less when the run's wall-time budget is shorter.",
  },
  {
    env: 'PARLEY_THREADS_MAX_PER_CALLER',
    at: 'threads.maxPerCaller',
    schema: positiveInt,
    default: '200',
    description: 'Threads kept per caller; a new thread beyond it drops the least recently used one.',
  },
  {
    env: 'PARLEY_THREAD_MAX_TURNS',
    at: 'threads.maxTurns',
    schema: positiveInt,
    default: '200',
    description: 'Turns kept per thread; the oldest are dropped first.',
  },
  {
    env: 'PARLEY_THREAD_MAX_AGE_MS',
    at: 'threads.maxAgeMs',
    schema: positiveInt,
    default: '2592000000',
    description: 'A thread not continued for this long is deleted (default 30 days).',
  },
  {
    env: 'PARLEY_IMAGE_ROLES',
    at: 'engine.imageRoles',
    schema: z
      .string()
      .transform((s) =>
        s.trim().toLowerCase() === 'none'
          ? []
          : s
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean),
      )
      .pipe(z.array(z.enum(MODEL_ROLES))),
    default: 'default,planner,specialist,synthesizer',
    description:
      "Model roles whose model is sent the request's image parts (comma list, or none); the others are told how many images came and see only text. Specialists count by their model_role.",
  },
] as const satisfies readonly Setting[];
