/**
 * The session's project as tools (server `project`): read_file, write_file and, when the client has a
 * terminal, run_command. Relative paths resolve against the session's folder; a path outside it is
 * never touched without a human's yes (ToolInspection.mustAsk), whatever the approval policy.
 * A write's inspection reads the current text so the reviewer sees the edit as a diff.
 */
import type { ToolCallContext, ToolCallResult, ToolDescriptor, ToolHost, ToolInspection } from '../types.ts';
import { truncateForModel } from '../result-text.ts';
import type { ProjectCall, ProjectClient } from './client.ts';
import { isInside, isInsideOnDisk, resolvePath } from './paths.ts';

export const PROJECT_SERVER = 'project';

export interface ProjectToolsOptions {
  /** The session's project folder (absolute). */
  root: string;
  client: ProjectClient;
  /** Longest tool result handed to the model (PARLEY_TOOL_RESULT_MAX_CHARS). */
  resultMaxChars: number;
}

const pathArg = { type: 'string', description: 'File path, relative to the project folder (or absolute).' };

function descriptors(options: ProjectToolsOptions): ToolDescriptor[] {
  const where = options.client.via === 'client' ? 'through the editor (unsaved changes included)' : 'on disk';
  const tools: ToolDescriptor[] = [
    {
      id: `${PROJECT_SERVER}/read_file`,
      server: PROJECT_SERVER,
      name: 'read_file',
      description: `Reads a text file of the user's project (${options.root}) ${where}.`,
      inputSchema: { type: 'object', properties: { path: pathArg }, required: ['path'] },
      annotations: { title: 'Read file', readOnlyHint: true },
    },
    {
      id: `${PROJECT_SERVER}/write_file`,
      server: PROJECT_SERVER,
      name: 'write_file',
      description: `Writes (creates or replaces) a text file of the user's project ${where}; the user reviews the diff.`,
      inputSchema: {
        type: 'object',
        properties: { path: pathArg, content: { type: 'string', description: 'The whole new text of the file.' } },
        required: ['path', 'content'],
      },
      annotations: { title: 'Write file', destructiveHint: true },
    },
  ];
  if (options.client.runCommand) {
    tools.push({
      id: `${PROJECT_SERVER}/run_command`,
      server: PROJECT_SERVER,
      name: 'run_command',
      description: `Runs a command in the editor's terminal, in the project folder (or cwd, inside it); returns its output and exit code.`,
      inputSchema: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The program to run.' },
          args: { type: 'array', items: { type: 'string' }, description: 'Its arguments.' },
          cwd: { type: 'string', description: 'Working directory, relative to the project folder.' },
        },
        required: ['command'],
      },
      annotations: { title: 'Run command', destructiveHint: true, openWorldHint: true },
    });
  }
  return tools;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function createProjectTools(options: ProjectToolsOptions): ToolHost {
  const tools = descriptors(options);
  const byId = new Map(tools.map((t) => [t.id, t]));
  const { root, client } = options;
  const inside = (path: string) => (client.via === 'disk' ? isInsideOnDisk(root, path) : isInside(root, path));
  const call = (ctx: ToolCallContext, id: string): ProjectCall => ({
    toolCallId: ctx.toolCallId,
    tool: id,
    signal: ctx.signal,
  });
  const ok = (t: string): ToolCallResult => ({ ok: true, text: truncateForModel(t, options.resultMaxChars), full: t });
  const fail = (error: string): ToolCallResult => ({ ok: false, text: error, full: null, error });
  /** The path a call touches (a command: its working directory). */
  const targetOf = (id: string, args: Record<string, unknown>): string | undefined => {
    if (id === `${PROJECT_SERVER}/run_command`) return resolvePath(root, text(args.cwd) ?? '.');
    const path = text(args.path);
    return path === undefined ? undefined : resolvePath(root, path);
  };

  return {
    listTools: () => Promise.resolve(tools),
    getTool: (id) => Promise.resolve(byId.get(id)),
    async inspect(id, args): Promise<ToolInspection> {
      const target = targetOf(id, args);
      if (target === undefined) return {};
      const result: ToolInspection = {};
      if (!(await inside(target))) result.mustAsk = `outside the project folder ${root}`;
      if (id === `${PROJECT_SERVER}/write_file` && typeof args.content === 'string') {
        const before = await client
          .readTextFile(target, { toolCallId: '', tool: id, signal: AbortSignal.timeout(10_000) })
          // A file that does not exist yet has no before-text: the diff shows it as new.
          .catch(() => undefined);
        result.preview = { type: 'diff', path: target, oldText: before ?? null, newText: args.content };
      }
      if (id === `${PROJECT_SERVER}/run_command`) {
        const argv = Array.isArray(args.args) ? args.args.map(String) : [];
        result.preview = { type: 'command', command: [text(args.command) ?? '', ...argv].join(' '), cwd: target };
      }
      return result;
    },
    async callTool(id, args, ctx) {
      const target = targetOf(id, args);
      if (!byId.has(id)) return fail(`unknown tool ${id}`);
      if (target === undefined) return fail(`${id} needs a "path" string argument`);
      try {
        switch (id) {
          case `${PROJECT_SERVER}/read_file`: {
            const content = await client.readTextFile(target, call(ctx, id));
            return content === undefined ? fail(`no such file: ${target}`) : ok(content);
          }
          case `${PROJECT_SERVER}/write_file`: {
            const content = text(args.content);
            if (content === undefined) return fail(`${id} needs a "content" string argument`);
            await client.writeTextFile(target, content, call(ctx, id));
            return ok(`Wrote ${content.length} characters to ${target}.`);
          }
          default: {
            const command = text(args.command);
            if (!command || !client.runCommand) return fail(`${id} needs a "command" string argument`);
            const argv = Array.isArray(args.args) ? args.args.map(String) : [];
            const run = await client.runCommand(command, argv, target, call(ctx, id));
            const how = run.signal ? `killed by ${run.signal}` : `exit code ${run.exitCode ?? 'unknown'}`;
            const out = `${run.truncated ? '[output truncated at the start]\n' : ''}${run.output}`;
            const summary = `$ ${[command, ...argv].join(' ')}\n${out}\n(${how})`;
            return run.exitCode === 0
              ? ok(summary)
              : { ...fail(summary), text: truncateForModel(summary, options.resultMaxChars) };
          }
        }
      } catch (err) {
        return fail(`${id} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    close: () => Promise.resolve(),
  };
}
