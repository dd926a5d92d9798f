/** SKILL.md files: front matter validation, the body as prompt, and the shipped roster. */
import { describe, expect, it } from 'vitest';
import { SkillFileError, parseSkillFile, readSkillsFolder, skillToSpecialist } from '../../../src/knowledge/ingest/skills.ts';

const file = (front: string, body = 'You are helpful.') => `---\n${front}\n---\n${body}\n`;

describe('SKILL.md files', () => {
  it('parses front matter and uses the body as the system prompt', () => {
    const skill = parseSkillFile(file('name: sql-tuner\ndescription: Tunes SQL.\ndomains: [sql]\ntools: [db/query, fs/*]\nmodel_role: planner', '  Tune queries.\n\nCarefully.  '), 'x.md');
    expect(skill.frontMatter).toEqual({ name: 'sql-tuner', description: 'Tunes SQL.', domains: ['sql'], tools: ['db/query', 'fs/*'], model_role: 'planner' });
    expect(skill.prompt).toBe('Tune queries.\n\nCarefully.');
    const specialist = skillToSpecialist(skill, 'skills:/d', ['fs/read', 'fs/write', 'other/x']);
    expect(specialist).toMatchObject({ id: 'sql-tuner', kind: 'prompt', modelRole: 'planner', tools: ['db/query', 'fs/read', 'fs/write'], sourceId: 'skills:/d', available: true });
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
    expect(reason(file('name: ok\ndescription: d\ntools: [nosuchformat]'))).toMatch(/front matter tools\.0: tool ids look like server\/tool/);
    expect(reason(file('name: ok\ndescription: d\ncolour: blue'))).toMatch(/colour/);
    expect(reason(file('name: ok\ndescription: d', '   '))).toMatch(/body \(the system prompt\) is empty/);
  });

  it('the shipped roster loads completely', () => {
    const folder = readSkillsFolder('specialists');
    expect(folder.skipped).toEqual([]);
    const names = folder.skills.map((s) => s.frontMatter.name);
    for (const required of ['researcher', 'architect', 'typescript-programmer', 'python-programmer', 'devops', 'database', 'security', 'qa', 'debugger', 'writer']) {
      expect(names).toContain(required);
    }
    for (const s of folder.skills) {
      expect(s.frontMatter.domains.length).toBeGreaterThan(0);
      expect(s.prompt.length).toBeGreaterThan(200);
    }
  });
});
