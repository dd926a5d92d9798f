/**
 * mcp_config.json: the standard `mcpServers` format (as used by Claude Desktop, Cursor, VS Code…)
 * plus Parley's additions. Tool configuration, so it lives in tools/: the live connections here and
 * knowledge/ingest (tools/list discovery) both read servers through it, the same way.
 *
 *   { "mcpServers": { "<name>": <stdio server> | <http server> } }
 *   stdio: { "command", "args"?, "env"?, "cwd"? }
 *   http:  { "url", "transport"?: "streamable-http" | "sse" (alias "type": "http" | "sse"), "headers"? }
 *   both:  "disabled"?, "disabledTools"?: [names], "description"?, "domains"?: [..],
 *          "requireApproval"?: true | false | [tool names], "timeoutMs"?,
 *          "tools"?: { "<tool>": { "requireApproval"?: boolean, "timeoutMs"? } }
 *
 * `${VAR}` (and `${VAR:-default}`) in any string is replaced from the environment when the file
 * is loaded; a variable that is not set is an error naming it. Disabled servers are not expanded.
 * A description is read by models (the planner, the server's specialist), so it is rendered too: the
 * `<PARLEY_DATA_DIR>` spelling of older shipped configs (copied into Parley homes) becomes the real path.
 * `${PARLEY_CONFIG_DIR}` is the folder of the config file (for absolute paths servers need);
 * `${PARLEY_PACKAGE_DIR}` is Parley's own folder (its node_modules hold the servers it ships with),
 * so a copy of the shipped config in the Parley home (`parley init`) still finds them.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { PACKAGE_ROOT } from '../package-root.ts';

export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

const ToolOverrideSchema = z.strictObject({
  requireApproval: z.boolean().optional(),
  timeoutMs: z.number().int().positive().optional(),
});

const CommonSchema = {
  disabled: z.boolean().default(false),
  disabledTools: z.array(z.string()).default([]),
  description: z.string().optional(),
  domains: z.array(z.string()).default([]),
  requireApproval: z.union([z.boolean(), z.array(z.string())]).optional(),
  timeoutMs: z.number().int().positive().optional(),
  tools: z.record(z.string(), ToolOverrideSchema).default({}),
};

const StdioServerSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  ...CommonSchema,
});

const HttpServerSchema = z.object({
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  /** Checked as an http(s) URL after ${VAR} expansion (enabled servers only). */
  url: z.string().min(1),
  transport: z.enum(['streamable-http', 'sse']).optional(),
  headers: z.record(z.string(), z.string()).default({}),
  ...CommonSchema,
});

export const McpServerSchema = z.union([StdioServerSchema, HttpServerSchema], {
  error: () => 'a server needs either "command" (stdio) or "url" (streamable-http / sse)',
});

/** The file's outer shape; each server is then checked against the schema its keys call for. */
export const McpConfigSchema = z.object({
  mcpServers: z
    .record(
      z.string().regex(/^[A-Za-z0-9_.-]+$/, 'server names are letters, digits, _ . and -'),
      z.record(z.string(), z.unknown()),
    )
    .default({}),
});

/** Stdio when it has "command", HTTP when it has "url": so errors point into the right schema. */
function serverSchemaFor(entry: Record<string, unknown>) {
  if ('command' in entry) return StdioServerSchema;
  if ('url' in entry) return HttpServerSchema;
  return McpServerSchema;
}

interface ServerCommon {
  name: string;
  disabled: boolean;
  disabledTools: string[];
  description?: string;
  domains: string[];
  requireApproval?: boolean | string[];
  timeoutMs?: number;
  tools: Record<string, { requireApproval?: boolean; timeoutMs?: number }>;
  /** Hash of this server's entry (after expansion): ingestion skips unchanged servers. */
  hash: string;
}
export interface StdioServerConfig extends ServerCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Absolute; defaults to the config file's folder so relative paths in args work from anywhere. */
  cwd: string;
}
export interface HttpServerConfig extends ServerCommon {
  transport: 'streamable-http' | 'sse';
  url: string;
  headers: Record<string, string>;
}
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export interface McpConfig {
  /** Absolute path of the file, or "<inline>". */
  path: string;
  servers: McpServerConfig[];
}

type Env = Record<string, string | undefined>;

/** Reads and validates the file; throws McpConfigError naming the file and the bad field or variable. */
export function loadMcpConfig(path: string, env: Env = process.env): McpConfig {
  const abs = resolve(path);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    throw new McpConfigError(
      `Cannot read the MCP config ${abs}: ${(err as NodeJS.ErrnoException).code ?? String(err)}. ` +
        'Point PARLEY_MCP_CONFIG at an existing file (a relative path is read from the folder Parley starts in), ' +
        "or unset it to use the Parley home's mcp_config.json or the shipped one (docs/configuration.md, The Parley home).",
    );
  }
  return parseMcpConfig(text, env, abs);
}

export function parseMcpConfig(text: string, env: Env = process.env, path = '<inline>'): McpConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  const baseDir = path === '<inline>' ? process.cwd() : dirname(path);
  const vars: Env = { PARLEY_CONFIG_DIR: baseDir, PARLEY_PACKAGE_DIR: PACKAGE_ROOT, ...env };
  // Expand first (enabled servers only), then validate what the servers will actually get.
  const root = json as { mcpServers?: unknown };
  if (root && typeof root === 'object' && root.mcpServers && typeof root.mcpServers === 'object') {
    root.mcpServers = Object.fromEntries(
      Object.entries(root.mcpServers as Record<string, unknown>).map(([name, entry]) => {
        const disabled = (entry as { disabled?: unknown } | null)?.disabled === true;
        return [
          name,
          disabled ? entry : renderDescription(expandAll(entry, vars, `${path}: mcpServers.${name}`), vars),
        ];
      }),
    );
  }
  const parsed = McpConfigSchema.safeParse(json);
  if (!parsed.success) throw issueError(path, [], parsed.error);
  const servers = Object.entries(parsed.data.mcpServers).map(([name, raw]) => {
    const checked = serverSchemaFor(raw).safeParse(raw);
    if (!checked.success) throw issueError(path, ['mcpServers', name], checked.error);
    const entry = checked.data;
    if (!entry.disabled && 'url' in entry && !HTTP_URL.safeParse(entry.url).success) {
      throw new McpConfigError(`${path}: mcpServers.${name}.url: ${JSON.stringify(entry.url)} is not an http(s) URL`);
    }
    return toServer(name, entry, baseDir);
  });
  return { path, servers };
}

function issueError(path: string, prefix: PropertyKey[], error: z.ZodError): McpConfigError {
  const issue = error.issues[0]!;
  const where = [...prefix, ...issue.path].map(String).join('.') || '(root)';
  return new McpConfigError(`${path}: ${where}: ${issue.message}`);
}

function toServer(name: string, s: z.infer<typeof McpServerSchema>, baseDir: string): McpServerConfig {
  const common = {
    name,
    disabled: s.disabled,
    disabledTools: s.disabledTools,
    description: s.description,
    domains: s.domains,
    requireApproval: s.requireApproval,
    timeoutMs: s.timeoutMs,
    tools: s.tools,
    hash: createHash('sha256').update(JSON.stringify(s)).digest('hex'),
  };
  if ('command' in s) {
    return {
      ...common,
      transport: 'stdio',
      command: s.command,
      args: s.args,
      env: s.env,
      cwd: resolve(baseDir, s.cwd ?? '.'),
    };
  }
  const transport = s.transport ?? (s.type === 'sse' ? 'sse' : 'streamable-http');
  return { ...common, transport, url: s.url, headers: s.headers };
}

const HTTP_URL = z.url({ protocol: /^https?$/ });

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function expandAll<T>(value: T, env: Env, where: string): T {
  if (typeof value === 'string') {
    return value.replace(VAR, (_m, name: string, fallback: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      throw new McpConfigError(`${where} uses \${${name}}, but the environment variable ${name} is not set`);
    }) as T;
  }
  if (Array.isArray(value)) return value.map((v, i) => expandAll(v, env, `${where}[${i}]`)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandAll(v, env, `${where}.${k}`)])) as T;
  }
  return value;
}

const LEGACY_VAR = /<(PARLEY_[A-Z_]+)>/g;

/** Older configs wrote `<PARLEY_DATA_DIR>` in descriptions: rendered like `${PARLEY_DATA_DIR}` when the variable is known. */
function renderDescription<T>(entry: T, vars: Env): T {
  const e = entry as { description?: unknown } | null;
  if (!e || typeof e !== 'object' || typeof e.description !== 'string') return entry;
  return { ...e, description: e.description.replace(LEGACY_VAR, (whole, name: string) => vars[name] || whole) } as T;
}

/** Config's say on approval for one tool: per-tool beats per-server; undefined defers to annotations/policy. */
export function configRequiresApproval(server: McpServerConfig, tool: string): boolean | undefined {
  const perTool = server.tools[tool]?.requireApproval;
  if (perTool !== undefined) return perTool;
  if (Array.isArray(server.requireApproval)) return server.requireApproval.includes(tool) ? true : undefined;
  return server.requireApproval;
}

/** Timeout for one tool: per-tool, then per-server; undefined means the global default. */
export function configToolTimeoutMs(server: McpServerConfig, tool: string): number | undefined {
  return server.tools[tool]?.timeoutMs ?? server.timeoutMs;
}

export function isToolEnabled(server: McpServerConfig, tool: string): boolean {
  return !server.disabledTools.includes(tool);
}

const REDACTED = '[redacted]';

/** The config as GET /mcp/config shows it: env values and header values are never sent out. */
export function redactMcpConfig(config: McpConfig): { path: string; servers: Record<string, unknown>[] } {
  return {
    path: config.path,
    servers: config.servers.map((s) => {
      const { hash: _hash, ...rest } = s;
      if (rest.transport === 'stdio') {
        return { ...rest, env: Object.fromEntries(Object.keys(rest.env).map((k) => [k, REDACTED])) };
      }
      return {
        ...rest,
        url: redactUrl(rest.url),
        headers: Object.fromEntries(Object.keys(rest.headers).map((k) => [k, REDACTED])),
      };
    }),
  };
}

/** Query strings and userinfo often carry tokens; keep only scheme, host and path. */
function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.username || u.password) {
    u.username = REDACTED;
    u.password = '';
  }
  for (const key of [...u.searchParams.keys()]) u.searchParams.set(key, REDACTED);
  return u.toString();
}
