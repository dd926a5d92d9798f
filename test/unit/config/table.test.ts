/**
 * The settings table (src/config/): one row per variable, one variable per place, every row's value
 * lands where its row says, and the Config type follows the rows (a row at the wrong place, or of the
 * wrong type, does not compile; `tsc` checks the type assertions below, vitest the values).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { loadConfig, SETTINGS, type Config, type Setting } from '../../../src/config.ts';
import type { ShapeOf } from '../../../src/config/shape.ts';
import { NO_HOME } from '../../support/home.ts';

const placed = SETTINGS.filter((row): row is Extract<(typeof SETTINGS)[number], { at: string }> => 'at' in row);

function valueAt(config: unknown, at: string): unknown {
  return at
    .replace(/\?/g, '')
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
}

describe('the settings table', () => {
  it('names each variable once and each place once', () => {
    const envs = SETTINGS.map((row) => row.env);
    expect(envs.filter((env, i) => envs.indexOf(env) !== i)).toEqual([]);
    const places = placed.map((row) => row.at.replace(/\?/g, ''));
    expect(places.filter((at, i) => places.indexOf(at) !== i)).toEqual([]);
  });

  it('gives every row a place, a model role, or says who reads it (only PARLEY_HOME: home/paths.ts)', () => {
    const unplaced = SETTINGS.filter((row) => !('at' in row) && !('role' in row)).map((row) => row.env);
    expect(unplaced).toEqual(['PARLEY_HOME']);
  });

  it('puts each value at its place', () => {
    const env = Object.fromEntries(
      placed.map((row) => [row.env, 'default' in row ? row.default : undefined]),
    ) as Record<string, string | undefined>;
    const config = loadConfig({ ...env, PARLEY_HOME: NO_HOME, NEO4J_URI: 'neo4j://db:7687' });
    for (const row of placed) {
      if (!('default' in row)) continue;
      const expected = row.schema.parse(row.default);
      expect(valueAt(config, row.at), row.env).toEqual(expected);
    }
    expect(valueAt(config, 'knowledge.neo4j.uri')).toBe('neo4j://db:7687');
  });

  it('leaves an optional object out when the row that opens it is unset', () => {
    const config = loadConfig({ PARLEY_HOME: NO_HOME, NEO4J_USER: 'someone' });
    expect(config.knowledge).not.toHaveProperty('neo4j');
    expect(config.store).not.toHaveProperty('databaseUrl');
    expect(config.cluster).toEqual({ leaseMs: 15_000 });
  });

  it('keeps store and cluster settings out of knowledge', () => {
    const config = loadConfig({
      PARLEY_HOME: NO_HOME,
      PARLEY_DATA_DIR: ':memory:',
      PARLEY_DATABASE_URL: 'postgres://p@db/parley',
      PARLEY_REDIS_URL: 'redis://r:6379',
      PARLEY_REPLICA_URL: 'http://10.0.0.5:8787/',
    });
    expect(config.store).toEqual({ dataDir: ':memory:', databaseUrl: 'postgres://p@db/parley' });
    expect(config.cluster).toEqual({ redisUrl: 'redis://r:6379', replicaUrl: 'http://10.0.0.5:8787', leaseMs: 15_000 });
    for (const moved of ['dataDir', 'databaseUrl', 'redisUrl', 'replicaUrl', 'replicaLeaseMs'])
      expect(config.knowledge).not.toHaveProperty(moved);
  });
});

describe('the Config type follows the rows', () => {
  it('types each place with its parser', () => {
    expectTypeOf<Config['server']['host']>().toEqualTypeOf<string>();
    expectTypeOf<Config['server']['port']>().toEqualTypeOf<number>();
    expectTypeOf<Config['server']['logLevel']>().toEqualTypeOf<'debug' | 'info' | 'warn' | 'error' | 'silent'>();
    expectTypeOf<Config['store']['databaseUrl']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Config['cluster']['leaseMs']>().toEqualTypeOf<number>();
    expectTypeOf<NonNullable<Config['knowledge']['neo4j']>['uri']>().toEqualTypeOf<string>();
    expectTypeOf<Config['protocols']['a2aGrpcPort']>().toEqualTypeOf<number | undefined>();
  });

  it('a row at the wrong place changes the type, so its users do not compile', () => {
    // Host and port swapped: the port becomes a string.
    const _swapped = [
      { env: 'PARLEY_HOST', at: 'server.port', schema: z.string(), default: '127.0.0.1', description: '' },
      { env: 'PARLEY_PORT', at: 'server.host', schema: z.coerce.number(), default: '8787', description: '' },
    ] as const satisfies readonly Setting[];
    type Swapped = ShapeOf<typeof _swapped>;
    expectTypeOf<Swapped['server']['port']>().toEqualTypeOf<string>();
    const listen = (port: number) => port;
    // @ts-expect-error a string port does not compile where a number is needed
    expect(() => listen(({ server: { port: '8787', host: 8787 } } as Swapped).server.port)).not.toThrow();
  });
});
