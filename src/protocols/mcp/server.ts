/**
 * Parley as an MCP server: tools ask, council, list_specialists, get_run, search_memory, approve,
 * run transcripts as resources parley://runs/{id} and council verdicts as parley://decisions/{id}. One McpServer per session (HTTP) or per
 * process (stdio); both are built here. Arguments are validated by the SDK from the zod schemas,
 * so bad arguments come back as a tool error result.
 *
 * A server acts for one caller (the key that opened the session): get_run, search_memory, approve
 * and the run and decision resources see only that caller's runs, approvals and decisions (an admin's: every caller's), and
 * another caller's id gets the same not-found answer as an unknown one.
 */
import {
  type Caller,
  canSee,
  CouncilRecordSchema,
  type KnowledgeReads,
  LOCAL_CALLER,
  MODEL_ROLES,
  ModelNameSchema,
  ownerFilter,
  resolveModelChoice,
  RoleModelsSchema,
  RUN_MODES,
  CITATION_STYLES,
  type RunEngine,
  type TimeTravel,
} from '../../graph/contract.ts';
import { McpServer, ResourceNotFoundError, ResourceTemplate, type CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ApprovalDecision, ToolDecision } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import { followRun, type FollowDeps } from './run.ts';
import { registerModePrompts } from './prompts.ts';
import {
  askAgain,
  type Ended,
  nextRound,
  requestCanElicit,
  type RoundDeps,
  type RoundState,
  verifyState,
  type StateSealing,
} from './rounds.ts';
import { stateKeySource } from './state-key.ts';
import { inputRequired, inputRequiredFields, inputRequiredText, MAX_WAIT_MS, waitForTurn } from './pending.ts';

export interface McpServerDeps {
  engine: RunEngine;
  store: KnowledgeReads;
  logger: Logger;
  version?: string;
  /** Whom this server acts for (default: the one local caller, "anonymous"). */
  caller?: Caller;
  /**
   * The protocol era this instance serves (the SDK's serving entries say): `modern` (2026-07-28, per-request
   * `_meta`, approvals as `input_required` rounds) or `legacy` (2025-era session, approvals by elicitation).
   */
  era?: 'legacy' | 'modern';
  /** Checkpoints and forks (docs/time-travel.md): with it, the `fork_run` tool. */
  timeTravel?: TimeTravel;
  /** Tells open `subscriptions/listen` streams (2026-07-28) that a run's transcript appeared. */
  notify?: { resourcesChanged(): void; resourceUpdated(uri: string): void };
  /** How 2026-07-28 `requestState` is signed (default: this process's random key, DEFAULT_STATE_TTL_SECONDS). */
  sealing?: StateSealing;
}

/** A round's state outlives a human's answer at the default approval timeout (5 min), with margin. */
const DEFAULT_STATE_TTL_SECONDS = 3600;

/** How long a 2026-07-28 client may reuse a list (the tool, prompt and template lists change only with a new version). */
const LIST_TTL_MS = 5 * 60_000;

const usageShape = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedTokens: z.number(),
  costUsd: z.number().nullable(),
  modelCalls: z.number(),
  toolCalls: z.number(),
});

/** A source by the name a person knows it by (docs/events.md NamedSource). */
const namedSource = z.object({
  kind: z.enum(['file', 'web', 'agent', 'tool']),
  title: z.string(),
  uri: z.string().optional(),
});

/** `usage` and `durationMs` come with a finished run; `pending` and `then` with `input_required`. */
const askOutput = z.object({
  runId: z.string(),
  threadId: z.string(),
  status: z.enum(['completed', 'failed', 'cancelled', 'blocked', 'input_required']),
  answer: z.string().optional(),
  error: z.string().optional(),
  usage: usageShape.optional(),
  durationMs: z.number().optional(),
  // The rest of run.finished (docs/events.md): without them here, a client that validates the output rejects the result.
  sources: z
    .array(z.object({ stepId: z.string(), specialist: z.string(), named: z.array(namedSource).optional() }))
    .optional()
    .describe('The steps the answer was written from, with what each read by name (the answer names no step).'),
  references: z
    .array(namedSource.extend({ n: z.number(), stepIds: z.array(z.string()) }))
    .optional()
    .describe('With citations "numbered": the references the answer cites as [n] and lists at its end.'),
  failedSteps: z
    .array(z.object({ stepId: z.string(), specialist: z.string(), status: z.string(), error: z.string() }))
    .optional()
    .describe('Steps that failed or were skipped: the answer is partial.'),
  retryAfterMs: z.number().optional(),
  ...inputRequiredFields,
});

/** A recorded run (the whole transcript, other fields too), or a running one's status. */
const runOutput = z.looseObject({
  id: z.string(),
  status: z.string().describe('running, input_required, or how the run ended (completed, failed, ...).'),
  ...inputRequiredFields,
});

const approveOutput = z.object({
  outcome: z.looseObject({ requestId: z.string(), resolvedBy: z.string(), actor: z.string() }),
  then: z
    .object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) })
    .describe('The call that waits for the run to go on.'),
});

const verdictOutput = CouncilRecordSchema.extend({ runId: z.string() });

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
});
const toolError = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** `ask`'s answer for a run that ended: the answer as text, the whole ending as structured content. */
function finishedAnswer(result: Ended): CallToolResult {
  const text =
    result.status === 'completed'
      ? (result.answer ?? '')
      : `Run ${result.runId} ${result.status}: ${result.error ?? 'no reason given'}`;
  return {
    content: [{ type: 'text', text }],
    structuredContent: { ...result },
    isError: result.status !== 'completed',
  };
}

export function createParleyMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: 'parley', version: deps.version ?? '0.1.0' },
    {
      capabilities: { logging: {} },
      // The same for every caller: shareable. resources/list and resources/read are the caller's runs: private, never reused.
      cacheHints: {
        'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'prompts/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'resources/list': { ttlMs: 0, cacheScope: 'private' },
        'resources/read': { ttlMs: 0, cacheScope: 'private' },
      },
      requestState: { verify: (state, ctx) => verifyState(rounds)(state, ctx) },
      instructions:
        'Parley routes a question to specialist agents (planned, verified, synthesized). Use `ask` for questions and tasks, ' +
        '`council` for a decision that deserves several perspectives. Tool calls that change things need a human: ' +
        'Parley asks through elicitation when your client supports it (on 2026-07-28 as an input_required result you retry ' +
        'with the answers); otherwise `ask` returns status input_required with the ' +
        'pending tool calls and the `approve` call that answers them, and `get_run` with waitMs returns the result.',
    },
  );
  const modern = deps.era === 'modern';
  // 2026-07-28: a run transcript's changes reach the listen streams that name its URI (resourceSubscriptions).
  if (modern) server.server.registerCapabilities({ resources: { subscribe: true } });
  const follow: FollowDeps = {
    engine: deps.engine,
    logger: deps.logger,
    // 2026-07-28 has no server-to-client requests: approvals become input_required rounds (rounds.ts).
    canElicit: () => {
      if (modern) return false;
      const e = server.server.getClientCapabilities()?.elicitation as Record<string, unknown> | undefined;
      return e !== undefined && (e.form !== undefined || Object.keys(e).length === 0);
    },
  };
  const caller: Caller = deps.caller ?? LOCAL_CALLER;
  const rounds: RoundDeps = {
    ...deps,
    caller,
    sealing: deps.sealing ?? { key: stateKeySource(undefined, undefined), ttlSeconds: DEFAULT_STATE_TTL_SECONDS },
  };
  // A run's transcript (parley://runs/{id}) appears once its result settles: the engine records it first.
  const announceTranscript = (runId: string, result: Promise<unknown>) =>
    void result.then(() => {
      const uri = `parley://runs/${runId}`;
      // HTTP 2026-07-28: this instance served one request; the handler's bus reaches the open listen streams.
      if (deps.notify) {
        deps.notify.resourcesChanged();
        deps.notify.resourceUpdated(uri);
        return;
      }
      try {
        if (!server.isConnected()) return;
        server.sendResourceListChanged();
        // stdio 2026-07-28: the entry routes this onto the listen subscriptions that asked for the URI.
        if (modern) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
      } catch {
        // The session closed in between: nobody to tell.
      }
    });
  const callerOf = () => caller;
  const ownerScope = () => {
    const callerId = ownerFilter(caller);
    return callerId === undefined ? {} : { callerId };
  };

  server.registerTool(
    'ask',
    {
      title: 'Ask Parley',
      description:
        'Run a question or task through the Parley graph: it routes to specialists, runs the plan, verifies and synthesizes one answer. ' +
        'Returns the answer with the run id and token usage. Sends progress per node and step when given a progressToken. ' +
        'Long runs may pause for a human approval of a tool call.',
      inputSchema: z.object({
        query: z.string().min(1).max(20_000).describe('The question or task, in plain language.'),
        mode: z
          .enum(RUN_MODES)
          .optional()
          .describe('auto (default: the router decides), direct (one model call), orchestrate (always plan), council.'),
        threadId: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Conversation id to continue; runs with the same id share context.'),
        model: ModelNameSchema.optional().describe(
          "A model id for every role of this run that `models` does not name (it needs a price in Parley's catalog).",
        ),
        models: RoleModelsSchema.optional().describe(
          `Model ids by role for this run, e.g. {"synthesizer": "gpt-4o"}; roles: ${MODEL_ROLES.join(', ')}.`,
        ),
        citations: z
          .enum(CITATION_STYLES)
          .optional()
          .describe(
            'none (default: the answer names no sources; they come as structured content) or numbered (the answer ' +
              'cites named sources, files, pages or agents, as [1], [2] and lists them at its end).',
          ),
        onApproval: z
          .enum(['return', 'wait'])
          .optional()
          .describe(
            'When a tool call needs a human and Parley cannot ask you through elicitation: return at once with status ' +
              'input_required, the pending tool calls and the approve call that answers them (return, the default), ' +
              'or hold this call until the approval is answered elsewhere (wait).',
          ),
      }),
      outputSchema: askOutput,
    },
    async ({ query, mode, threadId, model, models, citations, onApproval }, ctx) => {
      // A retried round of a run that waits for a human (2026-07-28): the state names the run, verified as the caller's.
      const state = modern ? ctx.mcpReq.requestState<RoundState>() : undefined;
      if (state) {
        const round = await nextRound(state.runId, ctx, rounds);
        if (!round) return toolError(`No run with id ${state.runId}.`);
        return round.status === 'finished' ? finishedAnswer(round.result) : round.answer;
      }
      const chosen = resolveModelChoice({ model, models });
      const handle = deps.engine.start({
        query,
        mode,
        threadId,
        ...(chosen ? { models: chosen } : {}),
        ...(citations ? { citations } : {}),
        caller: callerOf(),
        protocol: 'mcp',
      });
      announceTranscript(handle.id, handle.result);
      const followed = await followRun(handle, ctx, follow, { returnOnApproval: onApproval !== 'wait' });
      if (followed.status === 'input_required' && modern && requestCanElicit(ctx))
        return askAgain(handle.id, handle.pendingApprovals(), ctx, rounds);
      if (followed.status === 'input_required') {
        const waiting = inputRequired(handle.id, handle.pendingApprovals(), followed.elicitationError);
        return {
          content: [{ type: 'text', text: inputRequiredText(handle.id, waiting.pending, waiting.elicitationError) }],
          structuredContent: { runId: handle.id, threadId: handle.threadId, ...waiting },
        };
      }
      return finishedAnswer(followed.result);
    },
  );

  server.registerTool(
    'council',
    {
      title: 'Convene the council',
      description:
        "Put a decision to Parley's council: five advisors with different thinking styles answer, three reviewers rank them anonymously, " +
        'a chairman compares them and decides. Returns the advice as text, and the verdict as structured content (recommendation, ' +
        "insights, blind spots, consensus, dissent, confidence and its reason, each reviewer's ranking of the advisors).",
      inputSchema: z.object({
        question: z
          .string()
          .min(1)
          .max(20_000)
          .describe('The decision or question to deliberate, with the context that matters.'),
      }),
      outputSchema: verdictOutput,
    },
    async ({ question }, ctx) => {
      const handle = deps.engine.start({ query: question, mode: 'council', caller: callerOf(), protocol: 'mcp' });
      announceTranscript(handle.id, handle.result);
      // The council's answer is its verdict, so it waits for approvals (its advisors call no tools).
      const followed = await followRun(handle, ctx, follow, { returnOnApproval: false });
      const { result, verdict } =
        followed.status === 'finished' ? followed : { result: await handle.result, verdict: undefined };
      if (result.status !== 'completed' || !verdict)
        return toolError(`Council run ${result.runId} ${result.status}: ${result.error ?? 'no verdict was reached'}`);
      const structured = { runId: result.runId, ...verdict };
      return {
        content: [{ type: 'text', text: result.answer ?? verdict.answer ?? verdict.recommendation }],
        structuredContent: structured,
      };
    },
  );

  server.registerTool(
    'list_specialists',
    {
      title: 'List specialists',
      description: "The specialists in Parley's registry (prompt agents, MCP servers, A2A peers), optionally filtered.",
      inputSchema: z.object({
        kind: z.enum(['prompt', 'mcp', 'a2a']).optional(),
        domain: z.string().min(1).optional().describe('Only specialists with this domain.'),
        text: z
          .string()
          .min(1)
          .optional()
          .describe('Only specialists whose id, name or description contain this text.'),
        available: z.boolean().optional().describe('Only available (true) or unavailable (false) ones.'),
      }),
      annotations: { readOnlyHint: true },
    },
    async (filter) => {
      const specialists = await deps.store.listSpecialists(filter);
      return json({
        specialists: specialists.map((s) => ({
          id: s.id,
          name: s.name,
          description: s.description,
          kind: s.kind,
          domains: s.domains,
          tools: s.tools,
          available: s.available,
        })),
      });
    },
  );

  server.registerTool(
    'get_run',
    {
      title: 'Get a run',
      description:
        'A recorded run: query, status, answer, plan, steps with their results, tokens and cost. Also as resource parley://runs/{id}. ' +
        'A run still going is {id, status: "running"}, or status "input_required" with the pending approvals and the approve call ' +
        `that answers each. With waitMs (at most ${MAX_WAIT_MS}), waits that long for the run to end or to need a human first.`,
      inputSchema: z.object({
        run_id: z.string().min(1).describe('The run id (returned by ask).'),
        waitMs: z
          .number()
          .int()
          .min(0)
          .max(MAX_WAIT_MS)
          .optional()
          .describe('Wait up to this long for the run to end or to need an approval (default 0: answer at once).'),
      }),
      outputSchema: runOutput,
      annotations: { readOnlyHint: true },
    },
    async ({ run_id, waitMs }) => {
      const handle = deps.engine.get(run_id, caller);
      if (handle && waitMs) await waitForTurn(handle, waitMs);
      const run = await deps.store.getRun(run_id);
      if (run && canSee(caller, run.callerId)) return json(run);
      if (run || !handle) return toolError(`No run with id ${run_id}.`);
      const pending = handle.pendingApprovals();
      if (pending.length === 0) return json({ id: run_id, status: 'running' });
      const waiting = inputRequired(run_id, pending);
      return {
        content: [{ type: 'text', text: inputRequiredText(run_id, waiting.pending) }],
        structuredContent: { id: run_id, ...waiting },
      };
    },
  );

  if (deps.timeTravel) registerForkRun(server, deps.timeTravel, caller, announceTranscript);

  server.registerTool(
    'search_memory',
    {
      title: 'Search execution memory',
      description: 'Past runs whose question is similar to the query, with their answers and verifier scores.',
      inputSchema: z.object({
        query: z.string().min(1).max(2_000),
        k: z.number().int().min(1).max(50).optional().describe('How many hits (default 5).'),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ query, k }) => json({ hits: await deps.store.searchMemory(query, k ?? 5, ownerScope()) }),
  );

  server.registerTool(
    'approve',
    {
      title: 'Answer an approval',
      description:
        "Accept or deny the tool calls of a pending approval request (its id is announced in ask's progress or by GET /api/approvals), " +
        'or answer a forwarded elicitation with action/content.',
      inputSchema: z.object({
        request_id: z.string().min(1),
        decisions: z
          .record(z.string().min(1), z.enum(['accept', 'deny']))
          .optional()
          .describe('One decision per tool call id.'),
        feedback: z.string().max(10_000).optional(),
        action: z
          .enum(['accept', 'decline', 'cancel'])
          .optional()
          .describe('For an elicitation request instead of decisions.'),
        content: z.record(z.string(), z.unknown()).optional(),
      }),
      outputSchema: approveOutput,
    },
    async ({ request_id, decisions, feedback, action, content }) => {
      if ((decisions === undefined) === (action === undefined))
        return toolError('Send decisions (tool approval) or action (elicitation), exactly one of them.');
      const decision: ApprovalDecision =
        action !== undefined
          ? { kind: 'elicitation', action, ...(content ? { content } : {}) }
          : {
              kind: 'tool',
              decisions: Object.fromEntries(
                Object.entries(decisions ?? {}).map(([id, d]) => [id, { type: d } as ToolDecision]),
              ),
              ...(feedback ? { feedback } : {}),
            };
      const runId = deps.engine.approval(request_id, caller)?.runId;
      const answer = await deps.engine.resolveApproval(request_id, decision, `mcp:${caller.id}`, caller);
      if (!answer.ok) return toolError(`${answer.code}: ${answer.message}`);
      return json({
        outcome: answer.outcome,
        then: { tool: 'get_run', arguments: { run_id: runId, waitMs: MAX_WAIT_MS } },
      });
    },
  );

  server.registerResource(
    'run',
    new ResourceTemplate('parley://runs/{id}', {
      list: async () => ({
        resources: (await deps.store.listRuns({ limit: 50, ...ownerScope() })).map((r) => ({
          uri: `parley://runs/${r.id}`,
          name: r.id,
          description: `${r.status}: ${r.query.slice(0, 120)}`,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'Run transcript',
      description: 'A recorded run: query, plan, steps with outputs and lineage, answer, usage.',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = String(variables.id);
      const run = await deps.store.getRun(id);
      if (!run || !canSee(caller, run.callerId)) throw new ResourceNotFoundError(uri.href, `No run with id ${id}.`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(run, null, 2) }] };
    },
  );

  server.registerResource(
    'decision',
    new ResourceTemplate('parley://decisions/{id}', {
      list: async () => ({
        resources: (await deps.store.listDecisions(50, ownerScope())).map((d) => ({
          uri: `parley://decisions/${d.id}`,
          name: d.id,
          description: `${d.decidedAt}: ${d.question.slice(0, 120)}`,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'Council decision',
      description:
        'A council verdict: the question, the recommendation, insights, blind spots, confidence, its run id.',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = String(variables.id);
      const decision = await deps.store.getDecision(id);
      if (!decision || !canSee(caller, decision.callerId))
        throw new ResourceNotFoundError(uri.href, `No decision with id ${id}.`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(decision, null, 2) }] };
    },
  );

  registerModePrompts(server, deps.store);

  return server;
}

const forkOutput = z.object({
  runId: z.string(),
  threadId: z.string(),
  forkedFrom: z.object({ runId: z.string(), checkpoint: z.string() }),
});

/** `fork_run`: a new run from a checkpoint of one of the caller's runs (graph/timetravel/); answers at once. */
function registerForkRun(
  server: McpServer,
  timeTravel: TimeTravel,
  caller: Caller,
  announce: (runId: string, result: Promise<unknown>) => void,
): void {
  server.registerTool(
    'fork_run',
    {
      title: 'Fork a run',
      description:
        'Start a new run from a checkpoint of one of your runs (GET /api/runs/{id}/checkpoints lists them: after routing, ' +
        'after planning, after each step, after each verification round, before synthesis). Steps finished before the ' +
        'checkpoint are carried with their outputs and not run again; the rest runs. `edit` may change the query, the plan, ' +
        "finished steps' outputs and the models. Returns the new run id at once: follow it with get_run and waitMs.",
      inputSchema: z.object({
        run_id: z.string().min(1).describe('The run to fork.'),
        checkpoint: z.string().min(1).describe('A checkpoint id of that run, e.g. "cp-12".'),
        edit: z
          .object({
            query: z.string().optional().describe('Another query for the new run.'),
            plan: z
              .object({ rationale: z.string().optional(), steps: z.array(z.record(z.string(), z.unknown())) })
              .optional()
              .describe('Another plan: steps {id, specialist, objective, dependsOn}; validated like any plan.'),
            outputs: z
              .record(z.string(), z.string())
              .optional()
              .describe('New outputs of steps that had succeeded at the checkpoint, by step id.'),
            model: ModelNameSchema.optional().describe('A model for every role.'),
            models: RoleModelsSchema.optional().describe(`Models by role; roles: ${MODEL_ROLES.join(', ')}.`),
            stepModels: z.record(z.string(), ModelNameSchema).optional().describe('Models by plan step id.'),
          })
          .optional(),
      }),
      outputSchema: forkOutput,
    },
    async ({ run_id, checkpoint, edit }) => {
      const forked = await timeTravel.fork(run_id, caller, { checkpoint, ...(edit ? { edit } : {}) }, 'mcp');
      if (!forked.ok) return toolError(forked.message);
      announce(forked.handle.id, forked.handle.result);
      return json({ runId: forked.handle.id, threadId: forked.handle.threadId, forkedFrom: forked.forkedFrom });
    },
  );
}
