/**
 * Which tool calls need a human's yes. Inputs are data, never tool names: the global policy
 * (PARLEY_APPROVAL_POLICY), the per-server/per-tool `requireApproval` from mcp_config.json
 * (already resolved onto ToolDescriptor.requireApproval) and the tool's MCP annotations.
 *
 * Absent annotations follow the MCP spec's defaults: readOnlyHint defaults to false and
 * destructiveHint to true, so a tool that says nothing about itself is treated as destructive and
 * needs approval. Contradictory hints (readOnlyHint and destructiveHint both true) also need
 * approval: when a server is unsure of its own tool, a human decides.
 */
import type { ToolAnnotations } from './types.ts';

export type ApprovalPolicy = 'annotations' | 'always' | 'never';

export interface GuardVerdict {
  required: boolean;
  /** Short, human-readable cause; copied into PendingToolCall.reason. */
  reason: string;
}

/** What the guard reads of a tool (tools/ToolDescriptor has both): hitl/ sits below tools/. */
export interface GuardedTool {
  annotations?: ToolAnnotations;
  /** From mcp_config.json: true/false overrides annotations; undefined defers to policy. */
  requireApproval?: boolean;
}

export function needsApproval(tool: GuardedTool, policy: ApprovalPolicy): GuardVerdict {
  if (policy === 'always') return { required: true, reason: 'policy: always' };
  if (policy === 'never') return { required: false, reason: 'policy: never' };

  // Config is the operator's word and beats what a server says about its own tools.
  if (tool.requireApproval === true) return { required: true, reason: 'config: requireApproval' };
  if (tool.requireApproval === false) return { required: false, reason: 'config: requireApproval false' };

  const { readOnlyHint, destructiveHint } = tool.annotations ?? {};
  if (readOnlyHint === true && destructiveHint === true) {
    return { required: true, reason: 'annotations: readOnlyHint and destructiveHint both true' };
  }
  if (readOnlyHint === true) return { required: false, reason: 'annotations: readOnlyHint' };
  if (destructiveHint === true) return { required: true, reason: 'annotations: destructiveHint' };
  if (destructiveHint === false)
    return { required: false, reason: 'annotations: destructiveHint false (additive write)' };
  return { required: true, reason: 'annotations absent: MCP default destructiveHint=true' };
}
