/** Per-session state of the ACP adapter: one ACP session is one Parley thread. */
import {
  type PriorMessage,
  type RequestModels,
  RUN_MODES,
  type CitationStyle,
  type RunMode,
  type SessionTools,
} from '../../graph/contract.ts';
import type { SessionMode, SessionModeState } from '@agentclientprotocol/sdk';

export interface AcpSession {
  /** The ACP session id, used as the engine's threadId. */
  readonly id: string;
  /** The session's project root (absolute, as the client gave it): its tools work here. */
  readonly cwd: string;
  /** The project tools and the client's MCP servers, handed to every run of the session; closed with it. */
  tools?: SessionTools;
  /** The view of the prompt turn in progress: where a command's terminal is shown. */
  turn?: { showTerminal(call: { toolCallId: string; tool: string }, terminalId: string): Promise<void> };
  mode: RunMode;
  /** Set by a slash command with no text (`/council`): the mode of the next prompt only. */
  nextMode?: RunMode;
  /** Models chosen at session/new (`_meta.parley.model` / `.models`), for every run of the session. */
  models?: RequestModels;
  /** The model config option's value (config-options.ts), when one model was chosen for every role. */
  model?: string;
  /** `_meta.parley.reasoning`: stream the model's reasoning as agent_thought_chunk (default PARLEY_STREAM_REASONING). */
  reasoning?: boolean;
  /** `_meta.parley.citations`: "numbered" answers cite named sources as [1], [2] (default "none"). */
  citations?: CitationStyle;
  /** Prior turns, passed to the engine as RunRequest.messages so follow-ups have context. */
  readonly history: PriorMessage[];
  /** Tools (`server/tool`) the user allowed "always" in this session: later calls are accepted without asking. */
  readonly alwaysAllowed: Set<string>;
  /** The run of the prompt turn in progress, if any. */
  active?: { runId: string; cancelRequested: boolean };
}

const MODE_TEXT: Record<RunMode, { name: string; description: string }> = {
  auto: { name: 'Auto', description: 'The router decides: a direct answer, a plan of specialists, or a council.' },
  direct: { name: 'Direct', description: 'One model call answers; no plan, no specialists.' },
  orchestrate: {
    name: 'Orchestrate',
    description: 'Always plan: specialists run as a DAG, verified, then synthesized.',
  },
  council: { name: 'Council', description: 'Five advisors answer, three reviewers rank, a chairman writes a verdict.' },
  dynamic: {
    name: 'Dynamic',
    description: 'A manager agent spawns agents as it learns the task; they message each other and share a memory.',
  },
  hybrid: { name: 'Hybrid', description: 'A planned DAG whose steps may be managers that spawn agents of their own.' },
};

export const ACP_MODES: SessionMode[] = RUN_MODES.map((id) => ({ id, ...MODE_TEXT[id] }));

export function isRunMode(value: string): value is RunMode {
  return (RUN_MODES as readonly string[]).includes(value);
}

export function modeState(session: AcpSession): SessionModeState {
  return { currentModeId: session.mode, availableModes: ACP_MODES };
}

/** How many prior messages a session sends with each prompt (the newest ones). */
export const HISTORY_LIMIT = 20;

export function remember(session: AcpSession, query: string, answer: string | undefined): void {
  session.history.push({ role: 'user', content: query });
  if (answer) session.history.push({ role: 'assistant', content: answer });
  if (session.history.length > HISTORY_LIMIT) session.history.splice(0, session.history.length - HISTORY_LIMIT);
}
