/** The tool port: how specialists reach tools (MCP servers) and peer agents (A2A), as the engine sees them. */
import type { ApprovalPort, ToolAnnotations, ToolPreview } from '../hitl/types.ts';

export interface ToolDescriptor {
  /** Namespaced `server/tool`. */
  id: string;
  server: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
  /** From mcp_config.json: true/false overrides annotations; undefined defers to policy. */
  requireApproval?: boolean;
  timeoutMs?: number;
}

export interface ToolCallResult {
  ok: boolean;
  /** Text for the model (may be truncated, with a note saying so). */
  text: string;
  /** The server's whole result, for the caller of callTool; the engine keeps only `text` (see docs/tools.md). */
  full: unknown;
  error?: string;
}

export interface ToolCallContext {
  runId: string;
  stepId: string;
  toolCallId: string;
  signal: AbortSignal;
  /**
   * Where input the tool's server asks for mid-call (MCP elicitation/create) is requested. The
   * engine passes its own port here so it can emit approval.requested/resolved around it; when
   * absent the host falls back to the port it was built with.
   */
  approvals?: Pick<ApprovalPort, 'request'>;
}

/** What a host says about one call before it runs (ToolHost.inspect). */
export interface ToolInspection {
  /** Set when this call needs a human's yes whatever the policy says (e.g. a path outside the project): the reason. */
  mustAsk?: string;
  preview?: ToolPreview;
}

export interface ToolHost {
  listTools(): Promise<ToolDescriptor[]>;
  /** Optional: looks at a call's arguments before the approval guard (forced approval, a preview of the effect). */
  inspect?(id: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolInspection>;
  getTool(id: string): Promise<ToolDescriptor | undefined>;
  callTool(id: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallResult>;
  close(): Promise<void>;
}

/** An A2A peer (or any remote agent) used as a specialist. */
export interface PeerAgentHost {
  /** Sends the objective to the peer; streams progress text; resolves with its final output. */
  run(
    peer: string,
    objective: string,
    ctx: {
      runId: string;
      stepId: string;
      signal: AbortSignal;
      onProgress?: (text: string) => void;
      /** Where the peer's input-required questions go (see ToolCallContext.approvals). */
      approvals?: Pick<ApprovalPort, 'request'>;
    },
  ): Promise<{ ok: boolean; output: string; error?: string; sources: string[] }>;
}
