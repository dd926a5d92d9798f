/** mcp_config.json parsing: expansion, validation errors that name the problem, approval/timeout rules, redaction. */
import { describe, expect, it } from 'vitest';
import {
  McpConfigError,
  configRequiresApproval,
  configToolTimeoutMs,
  isToolEnabled,
  loadMcpConfig,
  parseMcpConfig,
  redactMcpConfig,
  type HttpServerConfig,
  type StdioServerConfig,
} from '../../../src/tools/mcp-config.ts';

const text = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });

describe('mcp_config.json', () => {
  it('reads stdio and HTTP servers with ${VAR} and ${VAR:-default} expanded everywhere', () => {
    const config = parseMcpConfig(
      text({
        fs: {
          command: 'node',
          args: ['server.js', '${ROOT}/work'],
          env: { TOKEN: '${TOKEN}', MODE: '${MODE:-safe}' },
          cwd: '/srv',
        },
        api: { url: 'https://${HOST}/mcp?key=${TOKEN}', headers: { Authorization: 'Bearer ${TOKEN}' }, type: 'sse' },
        plain: { url: 'http://127.0.0.1:9000/mcp' },
      }),
      { ROOT: '/data', TOKEN: 't0k', HOST: 'mcp.example.com' },
      '/etc/parley/mcp_config.json',
    );
    const fs = config.servers[0] as StdioServerConfig;
    expect(fs).toMatchObject({
      name: 'fs',
      transport: 'stdio',
      command: 'node',
      args: ['server.js', '/data/work'],
      env: { TOKEN: 't0k', MODE: 'safe' },
      cwd: '/srv',
    });
    const api = config.servers[1] as HttpServerConfig;
    expect(api).toMatchObject({
      transport: 'sse',
      url: 'https://mcp.example.com/mcp?key=t0k',
      headers: { Authorization: 'Bearer t0k' },
    });
    expect(config.servers[2]).toMatchObject({ transport: 'streamable-http', disabled: false, disabledTools: [] });
  });

  it('knows the config folder as ${PARLEY_CONFIG_DIR} and resolves cwd against it', () => {
    const config = parseMcpConfig(
      text({ fs: { command: 'node', args: ['${PARLEY_CONFIG_DIR}/x.js'] } }),
      {},
      '/etc/parley/mcp_config.json',
    );
    expect(config.servers[0]).toMatchObject({ args: ['/etc/parley/x.js'], cwd: '/etc/parley' });
  });

  it('renders descriptions, models read them: ${VAR}, and the <PARLEY_…> spelling of older configs when the variable is known', () => {
    const config = parseMcpConfig(
      text({
        fs: { command: 'node', description: 'Files in ${PARLEY_DATA_DIR}/workspace' },
        old: { command: 'node', description: 'Files in <PARLEY_DATA_DIR>/workspace; <PARLEY_UNKNOWN> stays' },
      }),
      { PARLEY_DATA_DIR: '/var/parley' },
    );
    expect(config.servers.map((s) => s.description)).toEqual([
      'Files in /var/parley/workspace',
      'Files in /var/parley/workspace; <PARLEY_UNKNOWN> stays',
    ]);
  });

  it('the shipped mcp_config.json names the real workspace folder', () => {
    const shipped = loadMcpConfig(new URL('../../../mcp_config.json', import.meta.url).pathname, {
      PARLEY_DATA_DIR: '/home/me/.parley/data',
    });
    const fs = shipped.servers.find((s) => s.name === 'filesystem')!;
    expect(fs.description).toContain('/home/me/.parley/data/workspace');
    for (const s of shipped.servers) expect(s.description ?? '').not.toMatch(/<PARLEY_|\$\{/);
  });

  it('a missing variable is an error naming the variable and where it is used', () => {
    expect(() =>
      parseMcpConfig(
        text({ gh: { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } } }),
        {},
        'cfg.json',
      ),
    ).toThrow(
      new McpConfigError(
        'cfg.json: mcpServers.gh.headers.Authorization uses ${GITHUB_TOKEN}, but the environment variable GITHUB_TOKEN is not set',
      ),
    );
  });

  it('does not expand disabled servers, so their variables need not exist', () => {
    const config = parseMcpConfig(text({ off: { url: '${NOPE}', disabled: true } }), {});
    expect(config.servers[0]).toMatchObject({ name: 'off', disabled: true });
  });

  it('rejects malformed files with the field that is wrong', () => {
    expect(() => parseMcpConfig('{ nope', {}, 'cfg.json')).toThrow(/cfg\.json is not valid JSON/);
    expect(() => parseMcpConfig(text({ x: { args: ['a'] } }), {}, 'cfg.json')).toThrow(
      /mcpServers\.x: a server needs either "command" \(stdio\) or "url"/,
    );
    expect(() => parseMcpConfig(text({ x: { url: 'ftp://host/mcp' } }), {}, 'cfg.json')).toThrow(
      /mcpServers\.x\.url: "ftp:\/\/host\/mcp" is not an http\(s\) URL/,
    );
    expect(() => parseMcpConfig(text({ x: { command: 'n', timeoutMs: -1 } }), {}, 'cfg.json')).toThrow(
      /mcpServers\.x\.timeoutMs/,
    );
    expect(() =>
      parseMcpConfig(text({ x: { command: 'n', tools: { t: { requireApproval: 'yes' } } } }), {}, 'cfg.json'),
    ).toThrow(/mcpServers\.x\.tools\.t\.requireApproval/);
    expect(() => loadMcpConfig('/nonexistent/mcp_config.json')).toThrow(
      /Cannot read the MCP config \/nonexistent\/mcp_config\.json: ENOENT/,
    );
  });

  it('resolves requireApproval and timeoutMs per tool, then per server', () => {
    const [listed, all, none] = parseMcpConfig(
      text({
        listed: {
          command: 'n',
          requireApproval: ['write'],
          timeoutMs: 5000,
          tools: { read: { timeoutMs: 100 }, move: { requireApproval: true } },
          disabledTools: ['rm'],
        },
        all: { command: 'n', requireApproval: true, tools: { read: { requireApproval: false } } },
        none: { command: 'n' },
      }),
      {},
    ).servers;
    expect(configRequiresApproval(listed!, 'write')).toBe(true);
    expect(configRequiresApproval(listed!, 'move')).toBe(true);
    expect(configRequiresApproval(listed!, 'read')).toBeUndefined(); // defers to annotations/policy
    expect(configRequiresApproval(all!, 'anything')).toBe(true);
    expect(configRequiresApproval(all!, 'read')).toBe(false);
    expect(configRequiresApproval(none!, 'x')).toBeUndefined();
    expect(configToolTimeoutMs(listed!, 'read')).toBe(100);
    expect(configToolTimeoutMs(listed!, 'write')).toBe(5000);
    expect(configToolTimeoutMs(none!, 'x')).toBeUndefined();
    expect(isToolEnabled(listed!, 'rm')).toBe(false);
    expect(isToolEnabled(listed!, 'read')).toBe(true);
  });

  it('redacts env values, header values and URL credentials', () => {
    const config = parseMcpConfig(
      text({
        fs: { command: 'node', env: { TOKEN: 'sekrit' } },
        api: { url: 'https://user:pw@h.example/mcp?key=sekrit', headers: { Authorization: 'Bearer sekrit' } },
      }),
      {},
    );
    const shown = JSON.stringify(redactMcpConfig(config));
    expect(shown).not.toContain('sekrit');
    expect(shown).not.toContain('pw@');
    expect(shown).toContain('"TOKEN":"[redacted]"');
    expect(shown).toContain('"Authorization":"[redacted]"');
    expect(shown).toContain('h.example/mcp');
  });

  it('the shipped mcp_config.json is valid and puts writes behind approval', () => {
    const config = loadMcpConfig('mcp_config.json', { PARLEY_DATA_DIR: '/srv/parley-data' });
    const fs = config.servers.find((s) => s.name === 'filesystem') as StdioServerConfig;
    expect(fs.transport).toBe('stdio');
    expect(fs.command).toBe('node');
    expect(fs.args[0]).toMatch(/node_modules\/@modelcontextprotocol\/server-filesystem\/dist\/index\.js$/);
    expect(fs.args[1]).toBe('/srv/parley-data/workspace');
    expect(configRequiresApproval(fs, 'write_file')).toBe(true);
    const memory = config.servers.find((s) => s.name === 'memory') as StdioServerConfig;
    expect(memory.env.MEMORY_FILE_PATH).toBe('/srv/parley-data/memory.jsonl');
    expect(() => loadMcpConfig('mcp_config.json', {})).toThrow(/PARLEY_DATA_DIR is not set/);
  });
});
