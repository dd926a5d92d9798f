/** `mcp` specialists: an MCP server's tools wrapped as a specialist (a tool loop restricted to that server). */
import type { StepRun } from '../scheduler.ts';
import { resolveTools, runSpecialistLoop, type SpecialistInput } from './prompt.ts';
import { toolsForStep } from './step-tools.ts';

export async function runMcpSpecialist(input: SpecialistInput): Promise<Omit<StepRun, 'lineage'>> {
  const { ctx, specialist } = input;
  const server = specialist.endpoint;
  const all = specialist.tools.length
    ? (await resolveTools(ctx, specialist.tools)).filter((t) => t.server === server)
    : (await ctx.tools.listTools()).filter((t) => t.server === server);
  if (all.length === 0) return { ok: false, output: '', error: `MCP server "${server}" offers no tools right now` };
  // A step the plan marks read-only gets the server's read-only tools only (step-tools.ts).
  const tools = toolsForStep(input.step, all);
  if (tools.length === 0)
    return {
      ok: false,
      output: '',
      error: `MCP server "${server}" has no read-only tools, and step "${input.step.id}" is planned not to change anything`,
    };
  const files =
    server === 'filesystem'
      ? '\nFile tools accept only paths inside their allowed folders: use absolute paths under the folder named above (list_allowed_directories names it).'
      : '';
  const readOnly = tools.length < all.length ? '\nThis step only reads: you are offered the read-only tools.' : '';
  const system =
    specialist.prompt ||
    `You operate the MCP server "${server}": ${specialist.description}\n\nUse its tools to achieve the objective, then report what you found or did.${files}${readOnly}`;
  return runSpecialistLoop(input, system, tools);
}
