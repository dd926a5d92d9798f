/** The settings of the home and the server (docs/configuration.md, "Home" and "Server"); PARLEY_HOME has no
 * place in Config: home/paths.ts reads it first and its result is Config.paths. */
import { z } from 'zod';
import { hostList, list, nonNegativeInt, originList, port, positiveInt, text } from './parsers.ts';
import type { Setting } from './setting.ts';

export const SERVER_SETTINGS = [
  {
    env: 'PARLEY_HOME',
    schema: text,
    description:
      'The Parley home: holds mcp_config.json, specialists/, prices.json (each used when present, else the shipped one) and data/. Unset: %APPDATA%\\Parley on Windows, ~/Library/Application Support/Parley on macOS, $XDG_CONFIG_HOME/parley or ~/.config/parley elsewhere. `parley init` writes editable copies into it; `--home <dir>` sets it for one command.',
  },
  {
    env: 'PARLEY_HOST',
    at: 'server.host',
    schema: text,
    default: '127.0.0.1',
    description: 'Interface to bind. Keep 127.0.0.1 unless a proxy with TLS is in front.',
  },
  {
    env: 'PARLEY_PORT',
    at: 'server.port',
    schema: port,
    default: '8787',
    description: 'TCP port (0 picks a free one).',
  },
  {
    env: 'PARLEY_API_KEYS',
    at: 'server.apiKeys',
    schema: list,
    default: '',
    description:
      'Comma-separated bearer API keys, one caller each: a caller sees only its own runs, approvals, sessions and memory. Empty (and no admin keys): auth off (logged once at start).',
  },
  {
    env: 'PARLEY_ADMIN_KEYS',
    at: 'server.adminKeys',
    schema: list,
    default: '',
    description:
      "Comma-separated bearer API keys of operators: they authenticate like API keys and also see and act on every caller's runs and approvals.",
  },
  {
    env: 'PARLEY_ALLOWED_HOSTS',
    at: 'server.allowedHosts',
    schema: hostList,
    default: '',
    description:
      'Comma-separated host names accepted in the Host header besides localhost, 127.0.0.1 and [::1] (any port); other Hosts get 403 (DNS-rebinding protection). Bound to a non-loopback address with this empty, any Host is accepted.',
  },
  {
    env: 'PARLEY_ALLOWED_ORIGINS',
    at: 'server.allowedOrigins',
    schema: originList,
    default: '',
    description:
      'Comma-separated browser origins (scheme://host[:port]) allowed to call Parley cross-origin, with CORS; a request with any other foreign Origin gets 403.',
  },
  {
    env: 'PARLEY_BODY_LIMIT_BYTES',
    at: 'server.bodyLimitBytes',
    schema: positiveInt,
    default: String(1024 * 1024),
    description:
      'Largest accepted request body, and WebSocket message on /acp; a larger body gets 413, a larger message closes the socket (1009).',
  },
  {
    env: 'PARLEY_JSON_MAX_DEPTH',
    at: 'server.jsonMaxDepth',
    schema: positiveInt,
    default: '64',
    description:
      'Deepest nesting of arrays and objects accepted in a JSON body or message; deeper gets 400 (a JSON-RPC error on /mcp, /acp, /a2a).',
  },
  {
    env: 'PARLEY_SHUTDOWN_TIMEOUT_MS',
    at: 'server.shutdownTimeoutMs',
    schema: positiveInt,
    default: '10000',
    description: 'On SIGINT/SIGTERM, how long in-flight runs may finish before they are cancelled.',
  },
  {
    env: 'PARLEY_LOG_LEVEL',
    at: 'server.logLevel',
    schema: z.enum(['debug', 'info', 'warn', 'error', 'silent']),
    default: 'info',
    description: 'Log verbosity (logs go to stderr).',
  },
  {
    env: 'PARLEY_SERVICE_IDLE_EXIT_MS',
    at: 'server.serviceIdleExitMs',
    schema: nonNegativeInt,
    default: '900000',
    description:
      'How long a Parley service started by `parley acp`, `parley mcp` (or `parley serve --idle-exit`) keeps running with no client connected before it exits; 0: never. A service you start yourself (`npm start`, `parley serve`) never exits for idleness (docs/service.md).',
  },
] as const satisfies readonly Setting[];
