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
  type ClientCapabilities,
} from '@agentclientprotocol/sdk';
import { type Caller, LOCAL_CALLER, readModelChoice, type RunEngine } from '../../graph/contract.ts';
import type { ApprovalPort } from '../../hitl/types.ts';
import { silentLogger, type Logger } from '../../log.ts';
import { agentInfo } from './info.ts';
import { promptToQuery } from './prompt.ts';
import { isRunMode, modeState, type AcpSession } from './session.ts';
import { runTurn } from './turn.ts';

export interface AcpDeps {
  engine: RunEngine;
  approvals: ApprovalPort;
  logger?: Logger;
  /** Who runs started through this connection are accounted to (budgets, rate limits). Default: "acp". */
  caller?: Caller;
}

export function createAcpAgent(deps: AcpDeps): AgentApp {
  const logger = deps.logger ?? silentLogger;
  const caller = deps.caller ?? LOCAL_CALLER;
  const sessions = new Map<string, AcpSession>();
  let clientCapabilities: ClientCapabilities | undefined;

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

  return agent({ name: 'parley' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return {
        // v1 is the only ACP version this adapter speaks; a client asking for another decides whether to go on.
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          // Sessions live as long as the connection; nothing to load after a restart.
          loadSession: false,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          // Client-offered MCP servers are accepted and not attached (docs/protocols/acp.md).
          mcpCapabilities: { http: false, sse: false },
          sessionCapabilities: { close: {} },
        },
        agentInfo: agentInfo(),
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, ({ params }) => {
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
      const session: AcpSession = {
        id: randomUUID(),
        cwd: params.cwd,
        mode: 'auto',
        history: [],
        alwaysAllowed: new Set(),
        ...(chosen.models ? { models: chosen.models } : {}),
        ...(reasoning !== undefined ? { reasoning } : {}),
      };
      sessions.set(session.id, session);
      if (params.mcpServers.length) {
        logger.info('acp: client-offered MCP servers are not attached', {
          sessionId: session.id,
          servers: params.mcpServers.map((s) => s.name),
        });
      }
      return { sessionId: session.id, modes: modeState(session) };
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!isRunMode(params.modeId)) {
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode "${params.modeId}"; use auto, direct, orchestrate or council`,
        );
      }
      session.mode = params.modeId;
      return {};
    })
    .onRequest(methods.agent.session.prompt, ({ params, client, signal }) => {
      const session = sessionOf(params.sessionId);
      if (session.active)
        throw RequestError.invalidRequest(
          { sessionId: session.id },
          'a prompt turn is already running in this session',
        );
      const input = promptToQuery(params.prompt);
      return runTurn(
        { engine: deps.engine, approvals: deps.approvals, logger, session, client, clientCapabilities, caller },
        input,
        signal,
      );
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (session) cancelActive(session, 'cancelled by the ACP client');
    })
    .onRequest(methods.agent.session.close, ({ params }) => {
      const session = sessionOf(params.sessionId);
      cancelActive(session, 'the ACP session was closed');
      sessions.delete(session.id);
      return {};
    });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
