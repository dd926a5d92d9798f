/** SKILL.md files: front matter validation, the body as prompt, and the shipped roster. */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SkillFileError,
  parseSkillFile,
  readSkillsFolder,
  skillToSpecialist,
} from '../../../src/knowledge/ingest/skills.ts';

const file = (front: string, body = 'You are helpful.') => `---\n${front}\n---\n${body}\n`;

describe('SKILL.md files', () => {
  it('parses front matter and uses the body as the system prompt', () => {
    const skill = parseSkillFile(
      file(
        'name: sql-tuner\ndescription: Tunes SQL.\ndomains: [sql]\ntools: [db/query, fs/*]\nmodel_role: planner',
        '  Tune queries.\n\nCarefully.  ',
      ),
      'x.md',
    );
    expect(skill.frontMatter).toEqual({
      name: 'sql-tuner',
      description: 'Tunes SQL.',
      domains: ['sql'],
      tools: ['db/query', 'fs/*'],
      model_role: 'planner',
    });
    expect(skill.prompt).toBe('Tune queries.\n\nCarefully.');
    const specialist = skillToSpecialist(skill, 'skills:/d', ['fs/read', 'fs/write', 'other/x']);
    expect(specialist).toMatchObject({
      id: 'sql-tuner',
      kind: 'prompt',
      modelRole: 'planner',
      tools: ['db/query', 'fs/read', 'fs/write'],
      sourceId: 'skills:/d',
      available: true,
    });
  });

  it('rejects bad files with a reason that names the problem', () => {
    const reason = (text: string) => {
      try {
        parseSkillFile(text, 'x.md');
        return 'parsed';
      } catch (err) {
        expect(err).toBeInstanceOf(SkillFileError);
        return (err as Error).message;
      }
    };
    expect(reason('just text')).toMatch(/no YAML front matter/);
    expect(reason(file('name: [oops'))).toMatch(/not valid YAML/);
    expect(reason(file('name: Bad Name\ndescription: d'))).toMatch(/front matter name: lowercase letters/);
    expect(reason(file('name: ok\ndescription: d\nmodel_role: wizard'))).toMatch(/front matter model_role/);
    expect(reason(file('name: ok\ndescription: d\ntools: [nosuchformat]'))).toMatch(
      /front matter tools\.0: tool ids look like server\/tool/,
    );
    expect(reason(file('name: ok\ndescription: d\ncolour: blue'))).toMatch(/colour/);
    expect(reason(file('name: ok\ndescription: d', '   '))).toMatch(/body \(the system prompt\) is empty/);
  });

  it('the shipped roster loads completely', () => {
    const folder = readSkillsFolder('specialists');
    expect(folder.skipped).toEqual([]);
    const names = folder.skills.map((s) => s.frontMatter.name);
    for (const required of [
      'researcher',
      'architect',
      'typescript-programmer',
      'python-programmer',
      'devops',
      'database',
      'security',
      'qa',
      'debugger',
      'writer',
    ]) {
      expect(names).toContain(required);
    }
    for (const s of folder.skills) {
      expect(s.frontMatter.domains.length).toBeGreaterThan(0);
      expect(s.prompt.length).toBeGreaterThan(200);
    }
  });

  it('reads <name>.md files and <name>/SKILL.md folders, ignores README.md, skips a duplicate name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-skills-'));
    try {
      writeFileSync(join(dir, 'README.md'), '# not a specialist');
      writeFileSync(join(dir, 'alpha.md'), file('name: alpha\ndescription: First.'));
      mkdirSync(join(dir, 'beta'));
      writeFileSync(join(dir, 'beta', 'SKILL.md'), file('name: beta\ndescription: Second.'));
      writeFileSync(join(dir, 'zeta.md'), file('name: alpha\ndescription: Same name again.'));
      const folder = readSkillsFolder(dir);
      expect(folder.skills.map((s) => s.frontMatter.name)).toEqual(['alpha', 'beta']);
      expect(folder.skipped).toEqual([
        { path: join(dir, 'zeta.md'), reason: `name "alpha" is already used by ${join(dir, 'alpha.md')}` },
      ]);
      const again = readSkillsFolder(dir);
      expect(again.contentHash).toBe(folder.contentHash);
      writeFileSync(join(dir, 'alpha.md'), file('name: alpha\ndescription: Changed.'));
      expect(readSkillsFolder(dir).contentHash).not.toBe(folder.contentHash);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
