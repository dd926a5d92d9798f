/**
 * The Parley home as a user meets it on the command line: `parley init` (what it wrote, what it kept),
 * `--home`, and the lines said at start about each source — including the ones that make a roster
 * smaller than the user expects (issue #16: "2 specialists instead of 12 and no warning").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { ROOT, runParley } from '../../support/parley-cli.ts';

const EMPTY_MCP = join(ROOT, 'test/fixtures/mcp-empty.json');

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** `parley <args>` in a fresh project folder, with the user's environment minus every Parley/model setting. */
function parley(args: string[], env: Record<string, string>, cwd = tempDir('parley-project-')) {
  return runParley(args, env, cwd);
}

describe('parley init', () => {
  it('writes editable copies into the home, says what it wrote, and never overwrites without --force', async () => {
    const home = join(tempDir('parley-home-'), 'home');
    const first = parley(['init'], { PARLEY_HOME: home });
    expect(await first.exit).toBe(0);
    const lines = first.out().trim().split('\n');
    expect(lines[0]).toBe(`Parley home: ${home} (PARLEY_HOME)`);
    expect(lines).toEqual(
      expect.arrayContaining([
        `wrote ${join(home, 'mcp_config.json')}`,
        `wrote ${join(home, 'prices.json')}`,
        `wrote ${join(home, 'specialists', 'researcher.md')}`,
      ]),
    );
    expect(lines.filter((l) => l.startsWith('wrote '))).toHaveLength(12);

    writeFileSync(
      join(home, 'prices.json'),
      readFileSync(join(ROOT, 'prices.json'), 'utf8').replace('"models"', '"models" '),
    );
    const edited = readFileSync(join(home, 'prices.json'), 'utf8');
    // The flag form, the same home: everything is kept.
    const again = parley(['--home', home, 'init'], {});
    expect(await again.exit).toBe(0);
    expect(again.out()).toContain(`kept ${join(home, 'prices.json')} (it exists; --force overwrites it)`);
    expect(again.out()).toContain('Nothing written: the home already has every file.');
    expect(again.out()).not.toMatch(/^wrote /m);
    expect(readFileSync(join(home, 'prices.json'), 'utf8')).toBe(edited);

    const forced = parley(['init', '--force'], { PARLEY_HOME: home });
    expect(await forced.exit).toBe(0);
    expect(forced.out()).toContain(`wrote ${join(home, 'prices.json')}`);
    expect(readFileSync(join(home, 'prices.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'prices.json'), 'utf8'));
  });

  it('refuses an unknown argument, and --home without a folder, with exit 2', async () => {
    const bad = parley(['init', '--forse'], { PARLEY_HOME: tempDir('parley-home-') });
    expect(await bad.exit).toBe(2);
    expect(bad.err()).toMatch(/parley init: unknown argument "--forse" \(only --force\)/);
    const noValue = parley(['run', 'hi', '--home'], {});
    expect(await noValue.exit).toBe(2);
    expect(noValue.err()).toMatch(/--home needs a folder/);
  });
});

describe('start lines', () => {
  it("name the home and each source with its origin: the home's copies after init, data in <home>/data", async () => {
    const home = tempDir('parley-home-');
    expect(await parley(['init'], { PARLEY_HOME: home }).exit).toBe(0);
    rmSync(join(home, 'prices.json'));
    const p = parley(['ingest'], { PARLEY_HOME: home });
    expect(await p.exit).toBe(0);
    const err = p.err();
    expect(err).toContain(`Parley home ${home} (PARLEY_HOME); data ${join(home, 'data')};`);
    expect(err).toContain(`MCP servers ${join(home, 'mcp_config.json')} (in the home)`);
    expect(err).toContain(`specialists ${join(home, 'specialists')} (in the home)`);
    expect(err).toContain(`prices ${join(ROOT, 'prices.json')} (shipped)`);
    expect(err).toMatch(/INFO 12 specialists available \(10 from specialist files, 2 MCP servers\)/);
    expect(JSON.parse(p.out())).toMatchObject({ specialists: 12, unknownServers: [] });
  }, 90_000);

  it('a config without the servers the specialists use is a warning per specialist and server, never a silent smaller roster', async () => {
    const p = parley(['ingest'], { PARLEY_HOME: tempDir('parley-home-'), PARLEY_MCP_CONFIG: EMPTY_MCP });
    expect(await p.exit).toBe(1);
    const err = p.err();
    expect(err).toContain(`MCP servers ${EMPTY_MCP} (from PARLEY_MCP_CONFIG)`);
    expect(err).toMatch(
      new RegExp(
        `WARN The specialist devops \\(${join(ROOT, 'specialists', 'devops.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) uses tools of the MCP server 'filesystem', which .*mcp-empty\\.json does not define \\(or disables\\): it runs without them\\. Add 'filesystem' to that file`,
      ),
    );
    expect(err).toMatch(/WARN The specialist researcher .* uses tools of the MCP server 'memory'/);
    expect(err).toMatch(/INFO 10 specialists available \(10 from specialist files, 0 MCP servers\)/);
    const report = JSON.parse(p.out()) as { unknownServers: { specialist: string; server: string }[] };
    expect(report.unknownServers).toContainEqual(
      expect.objectContaining({ specialist: 'devops', server: 'filesystem' }),
    );
    expect(report.unknownServers).toContainEqual(
      expect.objectContaining({ specialist: 'researcher', server: 'memory' }),
    );
  }, 90_000);

  it('a specialists folder that does not exist is a warning naming it and what to do', async () => {
    const p = parley(['ingest'], {
      PARLEY_HOME: tempDir('parley-home-'),
      PARLEY_MCP_CONFIG: EMPTY_MCP,
      PARLEY_SKILLS_DIRS: 'specialists',
    });
    expect(await p.exit).toBe(1);
    expect(p.err()).toMatch(
      /WARN The specialists folder \S+\/specialists \(from PARLEY_SKILLS_DIRS\) does not exist: no specialists come from it\. Fix PARLEY_SKILLS_DIRS/,
    );
    expect(p.err()).toMatch(/INFO 0 specialists available/);
  }, 90_000);

  it('an MCP config that cannot be read stops start-up with one line naming it and what to do', async () => {
    const p = parley(['mcp'], { PARLEY_HOME: tempDir('parley-home-'), PARLEY_MCP_CONFIG: 'mcp_config.json' });
    expect(await p.exit).toBe(1);
    expect(p.err()).toMatch(
      /parley: Cannot read the MCP config \S+\/mcp_config\.json: ENOENT\. Point PARLEY_MCP_CONFIG at an existing file .* or unset it to use the Parley home's mcp_config\.json or the shipped one/,
    );
  }, 90_000);
});
