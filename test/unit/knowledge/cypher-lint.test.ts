/**
 * Every Cypher statement of the Neo4j backend, checked by Neo4j's own linter with its parameters
 * declared and the built-in procedure catalogue loaded: no syntax or semantic diagnostics at all. The linter is
 * pinned to 2.0.0-next.20, the last that installs on Node 20 without EBADENGINE (it returns the diagnostics
 * themselves; later versions wrap them in `{ diagnostics }`).
 * Runs without a Neo4j server.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type * as CypherLanguageSupport from '@neo4j-cypher/language-support';
import {
  MIGRATE_TO_2,
  Q,
  READ_SCHEMA_VERSION,
  SCHEMA,
  WRITE_SCHEMA_VERSION,
} from '../../../src/knowledge/neo4j/queries.ts';
import { QUERY_NAMES } from '../../../src/knowledge/cypher/queries.ts';

// The linter's CommonJS build (one 24 MB file), loaded by Node itself: its ESM build has extension-less
// imports Node cannot resolve, so vitest transformed its ~40 MB module by module instead (~18 s of CPU and
// minutes of wall time on a loaded 2-core machine; ~2.5 s this way). docs/testing.md, "Where the time goes".
const { lintCypherQuery, testData } = createRequire(import.meta.url)(
  '@neo4j-cypher/language-support',
) as typeof CypherLanguageSupport;

const statements: [string, string][] = [
  ...Object.entries(Q),
  ['READ_SCHEMA_VERSION', READ_SCHEMA_VERSION],
  ['WRITE_SCHEMA_VERSION', WRITE_SCHEMA_VERSION],
  ...SCHEMA.map((s, i): [string, string] => [`SCHEMA[${i}]`, s]),
  ...MIGRATE_TO_2.map((s, i): [string, string] => [`MIGRATE_TO_2[${i}]`, s]),
];

// Neo4j's built-in procedures and functions, as shipped with the linter (db.index.fulltext.* etc.).
const { procedures, functions } = testData.mockSchema;
const schemaFor = (text: string) => ({
  procedures,
  functions,
  parameters: Object.fromEntries([...text.matchAll(/\$(\w+)/g)].map((m) => [m[1]!, ''])),
});

describe('Neo4j backend Cypher', () => {
  it('covers every statement the store runs (the shared ones and the dialect ones)', () => {
    expect(Object.keys(Q).sort()).toEqual([...QUERY_NAMES].sort());
  });

  it.each(statements)('%s lints clean', (_name, text) => {
    expect(lintCypherQuery(text, schemaFor(text)).map((d) => d.message)).toEqual([]);
  });

  it('the linter set-up does catch mistakes (so the clean results mean something)', () => {
    const messages = (text: string) =>
      lintCypherQuery(text, schemaFor(text))
        .map((d) => d.message)
        .join('\n');
    expect(messages('MATCH (s:Specialist {id: $id}) RETURN t')).toMatch(/Variable `t` not defined/);
    expect(messages("CALL db.index.fulltext.queryNode('specialist_text', $q) YIELD node RETURN node")).toMatch(
      /not present in the database/,
    );
    expect(
      lintCypherQuery('MATCH (s:Specialist {id: $id}) RETURN s', { procedures, functions }).map((d) => d.message),
    ).toContain('Parameter $id is not defined.');
  });
});
