/**
 * `mcp` specialists: an MCP server's tools wrapped as a specialist (a tool loop restricted to that
 * server). The `filesystem` server's specialist in a session with a project (ACP) works on the project
 * instead, like a prompt specialist bound to `filesystem/…` tools (session-bindings.ts): it is offered
 * the project tools, never Parley's own workspace.
 */
import type { ToolDescriptor } from '../../tools/types.ts';
import type { StepRun } from '../planning/scheduler.ts';
import { resolveTools, runSpecialistLoop, type SpecialistInput } from './prompt.ts';
import { withSessionTools } from './session-bindings.ts';
import { toolsForStep } from '../planning/step-tools.ts';

const PROJECT_NOTE =
  "\nFile tools work in the user's project folder: relative paths resolve against it; a path outside it needs the user's approval.";

/** The server's tools, or for the filesystem server in a session with a project, the project's tools. */
async function serverTools(input: SpecialistInput, server: string | undefined, own: ToolDescriptor[]) {
  if (server !== 'filesystem') return { tools: own, fromSession: new Set<string>() };
  const project = ((await input.run.sessionTools?.listTools()) ?? []).filter((t) => t.id.startsWith('project/'));
  if (project.length === 0) return { tools: own, fromSession: new Set<string>() };
  return withSessionTools(
    own.map((t) => t.id),
    own,
    project,
  );
}

export async function runMcpSpecialist(input: SpecialistInput): Promise<Omit<StepRun, 'lineage'>> {
  const { ctx, specialist } = input;
  const server = specialist.endpoint;
  const own = specialist.tools.length
    ? (await resolveTools(ctx, specialist.tools)).filter((t) => t.server === server)
    : (await ctx.tools.listTools()).filter((t) => t.server === server);
  const offered = await serverTools(input, server, own);
  const all = offered.tools;
  if (all.length === 0) return { ok: false, output: '', error: `MCP server "${server}" offers no tools right now` };
  // A step the plan marks read-only gets the server's read-only tools only (planning/step-tools.ts).
  const tools = toolsForStep(input.step, all);
  if (tools.length === 0)
    return {
      ok: false,
      output: '',
      error: `MCP server "${server}" has no read-only tools, and step "${input.step.id}" is planned not to change anything`,
    };
  const onProject = offered.fromSession.size > 0;
  const files = onProject
    ? PROJECT_NOTE
    : server === 'filesystem'
      ? '\nFile tools accept only paths inside their allowed folders: use absolute paths under the folder named above (list_allowed_directories names it).'
      : '';
  const readOnly = tools.length < all.length ? '\nThis step only reads: you are offered the read-only tools.' : '';
  const system =
    specialist.prompt ||
    `You operate the MCP server "${server}": ${specialist.description}\n\nUse its tools to achieve the objective, then report what you found or did.${files}${readOnly}`;
  return runSpecialistLoop(input, system, tools, offered.fromSession);
}
