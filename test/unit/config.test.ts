import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadConfig,
  ROLE_SETTING_SUFFIXES,
  SCRIPTED_BASE_URL,
  SECRET_SETTING,
  SETTINGS,
} from '../../src/config.ts';
import { MODEL_ROLES } from '../../src/llm/types.ts';
import { PACKAGE_ROOT } from '../../src/package-root.ts';
import { NO_HOME } from '../support/home.ts';

describe('config defaults', () => {
  it('with an empty environment: loopback server, no auth, scripted model for every role', () => {
    const config = loadConfig({ PARLEY_HOME: NO_HOME });
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 8787,
      apiKeys: [],
      adminKeys: [],
      allowedHosts: [],
      allowedOrigins: [],
      bodyLimitBytes: 1024 * 1024,
      jsonMaxDepth: 64,
      shutdownTimeoutMs: 10000,
      logLevel: 'info',
      serviceIdleExitMs: 900_000,
    });
    expect(config.protocols.mcpSessions).toEqual({ total: 256, perCaller: 32 });
    expect(config.protocols.acpConnections).toEqual({ total: 256, perCaller: 32 });
    expect(config.model.scripted).toBe(true);
    expect(Object.keys(config.model.roles).sort()).toEqual([...MODEL_ROLES].sort());
    for (const role of MODEL_ROLES)
      expect(config.model.roles[role]).toMatchObject({
        model: 'scripted',
        baseUrl: SCRIPTED_BASE_URL,
        timeoutMs: 60000,
      });
    expect(config.model).toMatchObject({
      maxRetries: 3,
      retryBaseMs: 500,
      pricesFile: join(PACKAGE_ROOT, 'prices.json'),
    });
    expect(config.knowledge.neo4j).toBeUndefined();
    expect(config.engine.maxTransitions).toBe(50);
    expect(config.approvals.defaultDecision).toBe('deny');
  });

  it('every setting with a default parses it', () => {
    for (const s of SETTINGS) {
      if ('default' in s) expect(s.schema.safeParse(s.default).success, s.env).toBe(true);
    }
  });

  it('an API key selects a real endpoint (OpenAI by default) and the default model', () => {
    const config = loadConfig({ OPENAI_API_KEY: 'sk-test' });
    expect(config.model.scripted).toBe(false);
    expect(config.model.roles.router).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-test',
      model: 'gpt-4o-mini',
    });
  });

  it('per-role settings override the defaults for that role only', () => {
    const config = loadConfig({
      PARLEY_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
      PARLEY_MODEL: 'llama3.1',
      PARLEY_MODEL_VERIFIER: 'qwen2.5',
      PARLEY_MODEL_VERIFIER_TEMPERATURE: '0',
      PARLEY_MODEL_COUNCIL_CHAIRMAN_BASE_URL: 'https://api.openai.com/v1',
      PARLEY_MODEL_COUNCIL_CHAIRMAN_API_KEY: 'sk-chair',
      PARLEY_MODEL_SPECIALIST_MAX_TOKENS: '512',
      PARLEY_MODEL_ROUTER_TIMEOUT_MS: '1000',
    });
    expect(config.model.roles.verifier).toMatchObject({ model: 'qwen2.5', temperature: 0 });
    expect(config.model.roles.council_chairman).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-chair',
      model: 'llama3.1',
    });
    expect(config.model.roles.specialist.maxTokens).toBe(512);
    expect(config.model.roles.router.timeoutMs).toBe(1000);
    expect(config.model.roles.planner).toMatchObject({
      model: 'llama3.1',
      baseUrl: 'http://127.0.0.1:11434/v1',
      timeoutMs: 60000,
    });
  });
});

describe('invalid values', () => {
  const candidates = ['not valid ☃', '-5', '0', '1.5', '1e12', '99999', 'ftp://example.com', 'maybe'];
  // Free text: any non-empty value is valid, so there is nothing to reject.
  const freeText = new Set([
    'PARLEY_HOST',
    'PARLEY_MODEL_API_KEY',
    'PARLEY_MODEL',
    'PARLEY_PRICES_FILE',
    'PARLEY_HOME',
    'PARLEY_DATA_DIR',
    'NEO4J_USER',
    'NEO4J_PASSWORD',
    'NEO4J_DATABASE',
    'PARLEY_MCP_CONFIG',
    'PARLEY_SKILLS_DIRS',
    'PARLEY_A2A_PEERS',
    'PARLEY_API_KEYS',
    'PARLEY_ADMIN_KEYS',
    'PARLEY_EMBEDDINGS_MODEL',
    'PARLEY_FREE_MODELS',
    // A PEM or a path: read and checked when the server starts (card-signer.ts), never quoted.
    'PARLEY_A2A_CARD_SIGNING_KEY',
  ]);

  for (const setting of SETTINGS) {
    const bad = candidates.find((v) => !setting.schema.safeParse(v).success);
    if (freeText.has(setting.env)) {
      it(`${setting.env} is free text`, () => expect(bad).toBeUndefined());
      continue;
    }
    it(`${setting.env}=${JSON.stringify(bad)} is rejected with its name`, () => {
      expect(bad).toBeDefined();
      expect(() => loadConfig({ [setting.env]: bad })).toThrow(ConfigError);
      // A secret's value is never quoted in the error (it reaches logs); anything else's is.
      const secret = SECRET_SETTING.test(setting.env);
      expect(() => loadConfig({ [setting.env]: bad })).toThrow(
        new RegExp(`^${setting.env}${secret ? ' \\(value not shown\\) is invalid' : '='}`),
      );
    });
  }

  it('PARLEY_REDIS_URL needs PARLEY_DATABASE_URL (replicas keep their runs in one Postgres)', () => {
    expect(() => loadConfig({ PARLEY_REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      /^PARLEY_REDIS_URL needs PARLEY_DATABASE_URL/,
    );
    const both = loadConfig({ PARLEY_REDIS_URL: 'redis://r:6379', PARLEY_DATABASE_URL: 'postgres://p@db/parley' });
    expect(both.cluster).toMatchObject({ redisUrl: 'redis://r:6379', leaseMs: 15_000 });
  });

  it('PARLEY_IMAGE_ROLES takes model roles or none, and names a wrong role', () => {
    expect(loadConfig({}).engine.imageRoles).toEqual(['default', 'planner', 'specialist', 'synthesizer']);
    expect(loadConfig({ PARLEY_IMAGE_ROLES: 'none' }).engine.imageRoles).toEqual([]);
    expect(loadConfig({ PARLEY_IMAGE_ROLES: 'router, verifier' }).engine.imageRoles).toEqual(['router', 'verifier']);
    expect(() => loadConfig({ PARLEY_IMAGE_ROLES: 'planner,chef' })).toThrow(
      /^PARLEY_IMAGE_ROLES="planner,chef" is invalid/,
    );
  });

  it('per-role values are validated with their own name', () => {
    expect(() => loadConfig({ PARLEY_MODEL_VERIFIER_TEMPERATURE: '3' })).toThrow(
      /^PARLEY_MODEL_VERIFIER_TEMPERATURE="3" is invalid/,
    );
    expect(() => loadConfig({ PARLEY_MODEL_ROUTER_BASE_URL: 'not a url' })).toThrow(/^PARLEY_MODEL_ROUTER_BASE_URL=/);
    expect(() => loadConfig({ PARLEY_MODEL_SPECIALIST_MAX_TOKENS: '-1' })).toThrow(
      /^PARLEY_MODEL_SPECIALIST_MAX_TOKENS=/,
    );
  });

  it('PARLEY_TIMEZONE is UTC by default and an IANA zone name; a wrong one says what is allowed', () => {
    expect(loadConfig({}).engine.timeZone).toBe('UTC');
    expect(loadConfig({ PARLEY_TIMEZONE: 'Europe/Paris' }).engine.timeZone).toBe('Europe/Paris');
    expect(() => loadConfig({ PARLEY_TIMEZONE: 'Mars/Olympus_Mons' })).toThrow(
      'PARLEY_TIMEZONE="Mars/Olympus_Mons" is invalid: an IANA time zone name such as UTC, Europe/Paris or America/New_York',
    );
  });

  it('PARLEY_KUZU_BUFFER_POOL_MB is at least 64 (Kuzu cannot ingest into a smaller pool) and becomes bytes', () => {
    expect(() => loadConfig({ PARLEY_KUZU_BUFFER_POOL_MB: '32' })).toThrow(
      /^PARLEY_KUZU_BUFFER_POOL_MB="32" is invalid/,
    );
    expect(loadConfig({ PARLEY_KUZU_BUFFER_POOL_MB: '64' }).knowledge.bufferPoolBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({}).knowledge.bufferPoolBytes).toBe(256 * 1024 * 1024);
  });

  it('OPENAI_BASE_URL is validated too', () => {
    expect(() => loadConfig({ OPENAI_BASE_URL: 'localhost:11434' })).toThrow(/^OPENAI_BASE_URL=/);
  });
});

describe('docs/configuration.md', () => {
  const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

  it('has a row for every setting, with its default', () => {
    const missing: string[] = [];
    for (const s of SETTINGS) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${s.env}\` |`));
      if (!row) {
        missing.push(s.env);
        continue;
      }
      const documented = row.split('|')[2]!.trim();
      const expected = !('default' in s) ? '(unset)' : s.default === '' ? '(empty)' : `\`${s.default}\``;
      expect(documented, `default of ${s.env}`).toBe(expected);
    }
    expect(missing, 'settings missing from docs/configuration.md').toEqual([]);
  });

  it('documents the per-role overrides and every role', () => {
    for (const suffix of Object.keys(ROLE_SETTING_SUFFIXES)) expect(doc).toContain(`\`PARLEY_MODEL_<ROLE>${suffix}\``);
    for (const role of MODEL_ROLES.filter((r) => r !== 'default')) expect(doc).toContain(`\`${role.toUpperCase()}\``);
  });
});
