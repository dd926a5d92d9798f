/** Whose a kept scorecard is and where it goes (src/cli/keep-scorecard.ts, docs/evals.md "In the console"). */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepForConsole, scorecardOwner } from '../../../src/cli/keep-scorecard.ts';
import { loadConfig } from '../../../src/config.ts';
import { scorecardOf } from '../../../src/eval/scorecard.ts';
import { callerIdOf } from '../../../src/http/auth.ts';

const dir = mkdtempSync(join(tmpdir(), 'parley-keep-card-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = (env: Record<string, string>) => loadConfig({ PARLEY_DATA_DIR: dir, ...env });
const card = scorecardOf('tiny', 1, []);

describe('the scorecard parley eval keeps for the console', () => {
  it("is the local caller's, or the caller of PARLEY_API_KEY when that is a configured key", () => {
    const keys = config({ PARLEY_API_KEYS: 'k1,k2', PARLEY_ADMIN_KEYS: 'boss' });
    expect(scorecardOwner(keys, undefined)).toEqual({ id: 'anonymous' });
    expect(scorecardOwner(keys, 'k2')).toEqual({ id: callerIdOf('k2') });
    expect(scorecardOwner(keys, 'boss')).toEqual({ id: callerIdOf('boss') });
    expect(scorecardOwner(keys, 'nope')).toEqual({
      error: 'PARLEY_API_KEY is not one of PARLEY_API_KEYS / PARLEY_ADMIN_KEYS: the scorecard is not kept',
    });
  });

  it('goes under the data dir, and says so; nowhere with :memory:, and a failed write is a line, not a crash', () => {
    const line = keepForConsole(config({ PARLEY_API_KEYS: 'k1' }), 'k1', card);
    expect(line).toMatch(/^scorecard ev-\d{13}-[0-9a-f]{8} kept for the console/);
    expect(readdirSync(join(dir, 'evals', callerIdOf('k1')))).toHaveLength(2);
    expect(keepForConsole(config({ PARLEY_DATA_DIR: ':memory:' }), undefined, card)).toContain('not kept');
    // A data dir whose evals/ is a file (so root, too, cannot write there).
    const blocked = join(dir, 'blocked');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'evals'), 'not a folder');
    expect(keepForConsole(config({ PARLEY_DATA_DIR: blocked }), undefined, card)).toMatch(
      /^the scorecard could not be kept for the console \(/,
    );
  });
});
