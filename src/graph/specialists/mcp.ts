/** `mcp` specialists: an MCP server's tools wrapped as a specialist (a tool loop restricted to that server). */
import type { StepRun } from '../scheduler.ts';
import { resolveTools, runSpecialistLoop, type SpecialistInput } from './prompt.ts';

export async function runMcpSpecialist(input: SpecialistInput): Promise<Omit<StepRun, 'lineage'>> {
  const { ctx, specialist } = input;
  const server = specialist.endpoint;
  const tools = specialist.tools.length
    ? (await resolveTools(ctx, specialist.tools)).filter((t) => t.server === server)
    : (await ctx.tools.listTools()).filter((t) => t.server === server);
  if (tools.length === 0) return { ok: false, output: '', error: `MCP server "${server}" offers no tools right now` };
  const system =
    specialist.prompt ||
    `You operate the MCP server "${server}" (${specialist.description}). Use its tools to achieve the objective, then report what you found or did.`;
  return runSpecialistLoop(input, system, tools);
}
