/**
 * The ACP agent: one AgentApp per client connection (it keeps that client's capabilities and sessions).
 * session/new → a session bound to a thread; session/prompt → an engine run (turn.ts);
 * session/cancel → engine.cancel; session/set_mode → the run mode of later prompts; session/close.
 */
import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import {
  agent,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentRequestContext,
  type ClientCapabilities,
} from '@agentclientprotocol/sdk';
import {
  type Caller,
  createSessionTools,
  LOCAL_CALLER,
  readModelChoice,
  type RunEngine,
  type SessionTools,
} from '../../graph/contract.ts';
import type { Config } from '../../config.ts';
import { silentLogger, type Logger } from '../../log.ts';
import { agentInfo } from './info.ts';
import { promptToQuery } from './prompt.ts';
import { AVAILABLE_COMMANDS, readSlashCommand } from './commands.ts';
import { mcpServerMap } from './mcp-servers.ts';
import { acpProjectClient } from './project-client.ts';
import { isRunMode, modeState, remember, type AcpSession } from './session.ts';
import { CITATION_STYLES, type CitationStyle, RUN_MODES } from '../../graph/contract.ts';
import { runTurn } from './turn.ts';
import type { AcpSessionStore } from '../../store/acp-sessions/types.ts';
import type { ThreadStore } from '../../store/threads/types.ts';
import { createSessionRecords, listSessionsPage, replayThread } from './load.ts';
import { configOptions, setConfigOption } from './config-options.ts';

export interface AcpDeps {
  engine: RunEngine;
  logger?: Logger;
  /** Who runs started through this connection are accounted to (budgets, rate limits). Default: "acp". */
  caller?: Caller;
  /** Tool settings (timeouts, breaker, result size) for the session's project tools and MCP servers. */
  toolSettings?: Config['tools'];
  /**
   * The client runs on this machine (`parley acp` over stdio): its stdio MCP servers may be started and,
   * without client `fs`, the session's folder is reached on disk. Default false (HTTP, WebSocket, in-process).
   */
  local?: boolean;
  /** Where the tools of open sessions are kept (added at session/new, removed when closed), for a transport to close at shutdown. */
  liveTools?: Set<SessionTools>;
  /** Where session records are kept, for session/load and session/list after a restart; without it neither is offered. */
  sessionStore?: AcpSessionStore;
  /** The threads (docs/threads.md): session/load replays the session's thread from here. */
  threads?: ThreadStore;
  /** The models the `model` config option offers (the configured roles' models); none: no model option. */
  models?: readonly string[];
}

/** Used when the composition root passes no tool settings (in-process tests, custom transports). */
const DEFAULT_TOOL_SETTINGS: Config['tools'] = {
  connect: 'lazy',
  timeoutMs: 60_000,
  breakerThreshold: 5,
  breakerCooldownMs: 30_000,
  resultMaxChars: 20_000,
};

export function createAcpAgent(deps: AcpDeps): AgentApp {
  return buildAcpAgent(deps).app;
}

/** The agent and a way to end its sessions (their MCP servers) when the connection closes. */
export function buildAcpAgent(deps: AcpDeps): {
  app: AgentApp;
  cancelTurns(reason: string, withinMs: number): Promise<void>;
  closeSessions(): Promise<void>;
} {
  const logger = deps.logger ?? silentLogger;
  const caller = deps.caller ?? LOCAL_CALLER;
  const sessions = new Map<string, AcpSession>();
  /** Prompt turns not yet answered. */
  const turns = new Set<Promise<unknown>>();
  let clientCapabilities: ClientCapabilities | undefined;
  const records = createSessionRecords(deps.sessionStore, caller.id, logger);
  const canLoad = deps.sessionStore !== undefined && deps.threads !== undefined;
  const models = deps.models ?? [];

  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  const cancelActive = (session: AcpSession, reason: string): void => {
    if (!session.active) return;
    session.active.cancelRequested = true;
    deps.engine.cancel(session.active.runId, reason);
  };
  const endSession = async (session: AcpSession, reason: string): Promise<void> => {
    cancelActive(session, reason);
    sessions.delete(session.id);
    await session.tools
      ?.close()
      .catch((err: unknown) =>
        logger.warn('acp: the session tools did not close cleanly', { sessionId: session.id, error: String(err) }),
      );
  };

  const app = agent({ name: 'parley' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return {
        // v1 is the only ACP version this adapter speaks; a client asking for another decides whether to go on.
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          // Sessions are stored (their conversation is the thread of the same id): an editor resumes one after a restart.
          loadSession: canLoad,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          // The client's MCP servers are connected for the session: stdio, Streamable HTTP and SSE.
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { close: {}, ...(canLoad ? { list: {}, resume: {} } : {}) },
        },
        agentInfo: agentInfo(),
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      if (!isAbsolute(params.cwd))
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      const parley = isObject(params._meta) ? params._meta.parley : undefined;
      const chosen = readModelChoice(
        isObject(parley) ? { model: parley.model, models: parley.models } : parley,
        '_meta.parley',
      );
      if (!chosen.ok) throw RequestError.invalidParams({ field: chosen.field }, chosen.message);
      const reasoning = isObject(parley) ? parley.reasoning : undefined;
      if (reasoning !== undefined && typeof reasoning !== 'boolean')
        throw RequestError.invalidParams(
          { field: '_meta.parley.reasoning' },
          '_meta.parley.reasoning must be true or false',
        );
      const citations = isObject(parley) ? parley.citations : undefined;
      if (citations !== undefined && !(CITATION_STYLES as readonly unknown[]).includes(citations))
        throw RequestError.invalidParams(
          { field: '_meta.parley.citations' },
          `_meta.parley.citations must be one of ${CITATION_STYLES.join(', ')}`,
        );
      const session: AcpSession = {
        id: randomUUID(),
        cwd: params.cwd,
        mode: 'auto',
        history: [],
        alwaysAllowed: new Set(),
        ...(chosen.models ? { models: chosen.models } : {}),
        ...(reasoning !== undefined ? { reasoning } : {}),
        ...(citations !== undefined ? { citations: citations as CitationStyle } : {}),
      };
      session.tools = sessionTools(session, params.mcpServers, client);
      deps.liveTools?.add(session.tools);
      sessions.set(session.id, session);
      await records.created(session, params.mcpServers);
      // After the response (the client learns the session id from it): the commands it may offer.
      setImmediate(() => {
        if (!sessions.has(session.id)) return;
        client
          .notify(methods.client.session.update, {
            sessionId: session.id,
            update: { sessionUpdate: 'available_commands_update', availableCommands: AVAILABLE_COMMANDS },
          })
          // Only a hint for the client's UI; a client gone meanwhile needs none.
          .catch(() => undefined);
      });
      return { sessionId: session.id, modes: modeState(session), configOptions: configOptions(session, models) };
    })
    .onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      const { modeChanged } = setConfigOption(session, params, models);
      if (modeChanged) await records.update(session.id, { mode: session.mode });
      return { configOptions: configOptions(session, models) };
    })
    .onRequest(methods.agent.session.setMode, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!isRunMode(params.modeId)) {
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode "${params.modeId}"; use ${RUN_MODES.slice(0, -1).join(', ')} or ${RUN_MODES.at(-1)}`,
        );
      }
      session.mode = params.modeId;
      await records.update(session.id, { mode: session.mode });
      return {};
    })
    .onRequest(methods.agent.session.prompt, ({ params, client, signal }) => {
      const session = sessionOf(params.sessionId);
      if (session.active)
        throw RequestError.invalidRequest(
          { sessionId: session.id },
          'a prompt turn is already running in this session',
        );
      const command = readSlashCommand(params.prompt);
      if (command && command.rest.length === 0) return modeForNextPrompt(session, command.mode, client);
      const input = promptToQuery(command ? command.rest : params.prompt);
      const mode = command?.mode ?? session.nextMode ?? session.mode;
      delete session.nextMode;
      const title = input.query;
      const turn = runTurn(
        { engine: deps.engine, logger, session, client, clientCapabilities, caller },
        input,
        signal,
        mode,
      ).then(async (response) => {
        // session_info_update: the title a session list shows, and when it was last active.
        const info = await records.prompted(session.id, title);
        if (info)
          await client
            .notify(methods.client.session.update, {
              sessionId: session.id,
              update: {
                sessionUpdate: 'session_info_update',
                title: info.title ?? null,
                updatedAt: new Date(info.updatedAt).toISOString(),
              },
            })
            // A title and a time for the client's session list; a client gone meanwhile needs none.
            .catch(() => undefined);
        return response;
      });
      // Tracked until answered, so a shutdown can wait for the `cancelled` answers it caused (cancelTurns).
      turns.add(turn);
      const untrack = () => void turns.delete(turn);
      turn.then(untrack, untrack);
      return turn;
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (session) cancelActive(session, 'cancelled by the ACP client');
    })
    .onRequest(methods.agent.session.load, ({ params, client }) => reopen(params, client, 'load'))
    // session/resume: the session again, its conversation kept for the model but not replayed to the client.
    .onRequest(methods.agent.session.resume, ({ params, client }) => reopen(params, client, 'resume'))
    .onRequest(methods.agent.session.list, async ({ params }) => {
      if (!canLoad) throw RequestError.methodNotFound(methods.agent.session.list);
      if (params.cwd != null && !isAbsolute(params.cwd))
        throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      return listSessionsPage(await records.list(params.cwd ?? undefined), params.cursor ?? undefined);
    })
    .onRequest(methods.agent.session.close, ({ params }) => {
      return endSession(sessionOf(params.sessionId), 'the ACP session was closed').then(() => ({}));
    });

  /**
   * session/load and session/resume: a stored session of this caller opened again on this connection, its
   * stored turns carried to the model; `load` replays them to the client first (the spec: every update of
   * the conversation, then the response), `resume` does not.
   */
  async function reopen(
    params: { sessionId: string; cwd: string; mcpServers?: Parameters<typeof mcpServerMap>[0] | null },
    client: AgentRequestContext<unknown>['client'],
    how: 'load' | 'resume',
  ) {
    const method = how === 'load' ? methods.agent.session.load : methods.agent.session.resume;
    if (!canLoad || !deps.threads) throw RequestError.methodNotFound(method);
    if (!isAbsolute(params.cwd)) throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
    // Another caller's session answers like an unknown one: the id tells nothing of whose it is.
    const record = await records.get(params.sessionId);
    if (!record) throw RequestError.resourceNotFound(`session ${params.sessionId}`);
    if (record.cwd !== params.cwd)
      throw RequestError.invalidParams(
        { cwd: params.cwd },
        `session ${record.sessionId} belongs to the folder ${record.cwd}, not ${params.cwd}`,
      );
    const open = sessions.get(record.sessionId);
    if (open) await endSession(open, `the ACP session was ${how === 'load' ? 'loaded' : 'resumed'} again`);
    const thread = await deps.threads.getThread(caller.id, record.sessionId);
    const session: AcpSession = {
      id: record.sessionId,
      cwd: record.cwd,
      mode: isRunMode(record.mode) ? record.mode : 'auto',
      history: [],
      alwaysAllowed: new Set(),
    };
    for (const turn of thread?.turns ?? []) remember(session, turn.user, turn.answer);
    // The servers the client passes now; none passed: the ones it passed at session/new.
    const passed = params.mcpServers ?? [];
    const mcpServers = passed.length > 0 ? passed : (record.mcpServers as typeof passed);
    session.tools = sessionTools(session, mcpServers, client);
    deps.liveTools?.add(session.tools);
    sessions.set(session.id, session);
    if (how === 'load')
      await replayThread(
        (update) => client.notify(methods.client.session.update, { sessionId: session.id, update }),
        thread?.turns ?? [],
      );
    await client
      .notify(methods.client.session.update, {
        sessionId: session.id,
        update: { sessionUpdate: 'available_commands_update', availableCommands: AVAILABLE_COMMANDS },
      })
      // Only a hint for the client's UI; a client gone meanwhile needs none.
      .catch(() => undefined);
    if (passed.length > 0) await records.update(session.id, { mcpServers: passed });
    return { modes: modeState(session), configOptions: configOptions(session, models) };
  }

  /** The session's project (through the client when it offers fs) and the MCP servers it passed. */
  function sessionTools(
    session: AcpSession,
    mcpServers: Parameters<typeof mcpServerMap>[0],
    client: Parameters<typeof acpProjectClient>[0],
  ): SessionTools {
    const project = acpProjectClient(client, clientCapabilities, session);
    const servers = mcpServerMap(mcpServers, deps.local === true);
    try {
      const tools = createSessionTools({
        root: session.cwd,
        ...(project ? { client: project } : {}),
        mcpServers: servers,
        disk: deps.local === true,
        settings: deps.toolSettings ?? DEFAULT_TOOL_SETTINGS,
        logger,
      });
      logger.info('acp: session tools', {
        sessionId: session.id,
        project: project ? 'client' : 'disk',
        servers: tools.servers,
      });
      return tools;
    } catch (err) {
      throw RequestError.invalidParams({ field: 'mcpServers' }, err instanceof Error ? err.message : String(err));
    }
  }

  return {
    app,
    /** Cancels every prompt in flight (each ends `cancelled`) and waits, at most `withinMs`, for them to end. */
    cancelTurns: async (reason: string, withinMs: number) => {
      if (turns.size === 0) return;
      for (const s of sessions.values()) cancelActive(s, reason);
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((r) => (timer = setTimeout(r, withinMs)));
      await Promise.race([Promise.allSettled([...turns]), bound]);
      clearTimeout(timer);
      // Each turn has returned its `cancelled`; the SDK writes the answers on the next turns of the event loop.
      await new Promise((r) => setTimeout(r, 50));
    },
    closeSessions: async () => {
      await Promise.all([...sessions.values()].map((s) => endSession(s, 'the ACP connection closed')));
    },
  };
}

async function modeForNextPrompt(
  session: AcpSession,
  mode: AcpSession['mode'],
  client: Parameters<typeof acpProjectClient>[0],
): Promise<{ stopReason: 'end_turn' }> {
  session.nextMode = mode;
  await client.notify(methods.client.session.update, {
    sessionId: session.id,
    update: {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: `The next prompt runs in ${mode} mode.` },
    },
  });
  return { stopReason: 'end_turn' };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
