/**
 * What McpToolHost needs to know about one entry of mcp_config.json's `mcpServers` (after
 * `${VAR}` expansion and validation by the knowledge ingest's loader). Structural, so the parsed
 * config can be passed as is.
 */
export interface McpServerSpec {
  /** stdio */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** remote */
  url?: string;
  /** Remote transport; default streamable-http. */
  transport?: 'streamable-http' | 'sse' | 'http' | 'stdio';
  headers?: Record<string, string>;
  disabled?: boolean;
  disabledTools?: string[];
  /** true/false for every tool of the server, or the names of the tools that need approval. */
  requireApproval?: boolean | string[];
  /** Call timeout for every tool of the server. */
  timeoutMs?: number;
  /** Per-tool overrides. */
  tools?: Record<string, { requireApproval?: boolean; timeoutMs?: number; disabled?: boolean }>;
}

export function toolRequireApproval(spec: McpServerSpec, tool: string): boolean | undefined {
  const own = spec.tools?.[tool]?.requireApproval;
  if (own !== undefined) return own;
  if (Array.isArray(spec.requireApproval)) return spec.requireApproval.includes(tool) ? true : undefined;
  return spec.requireApproval;
}

export function toolTimeoutMs(spec: McpServerSpec, tool: string): number | undefined {
  return spec.tools?.[tool]?.timeoutMs ?? spec.timeoutMs;
}

export function toolDisabled(spec: McpServerSpec, tool: string): boolean {
  return spec.disabledTools?.includes(tool) === true || spec.tools?.[tool]?.disabled === true;
}
