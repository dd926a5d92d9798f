/**
 * SKILL.md-style specialist files: YAML front matter (validated with zod) + a Markdown body that is
 * the specialist's system prompt. A folder may hold `<name>.md` files and/or `<name>/SKILL.md`
 * folders (Anthropic's skills layout). README.md files are documentation and are not read.
 *
 *   ---
 *   name: database              # id: lowercase letters, digits and dashes
 *   description: Designs schemas, writes and tunes SQL.
 *   domains: [database, sql]
 *   tools: [memory/search_nodes, filesystem/*]   # tool ids; `server/*` = every tool of the server
 *   model_role: specialist      # optional, default specialist
 *   ---
 *   You are a database engineer…
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { MODEL_ROLES } from '../../llm/types.ts';
import type { SpecialistRecord } from '../store.ts';

export const SkillFrontMatterSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
  description: z.string().min(1),
  domains: z.array(z.string().min(1)).default([]),
  tools: z.array(z.string().regex(/^[^/\s]+\/[^\s]+$/, 'tool ids look like server/tool or server/*')).default([]),
  model_role: z.enum(MODEL_ROLES).default('specialist'),
});
export type SkillFrontMatter = z.infer<typeof SkillFrontMatterSchema>;

export interface SkillFile {
  path: string;
  frontMatter: SkillFrontMatter;
  prompt: string;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

export class SkillFileError extends Error {
  override name = 'SkillFileError';
}

/** Parses one file's text; throws SkillFileError with a message that names the problem. */
export function parseSkillFile(text: string, path: string): SkillFile {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) throw new SkillFileError('no YAML front matter (the file must start with a line "---")');
  let data: unknown;
  try {
    data = parseYaml(match[1]!);
  } catch (err) {
    throw new SkillFileError(`front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const parsed = SkillFrontMatterSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SkillFileError(`front matter ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const prompt = match[2]!.trim();
  if (!prompt) throw new SkillFileError('the body (the system prompt) is empty');
  return { path, frontMatter: parsed.data, prompt };
}

/**
 * The specialist files of a folder, in name order: code-point order, the same on every machine
 * (localeCompare follows the process's locale) and without ICU's collation data, which an idle
 * server otherwise never loads (~2.5 MB resident: docs/performance.md, Startup and footprint).
 */
export function listSkillFiles(dir: string): string[] {
  const files: string[] = [];
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort(byName)) {
    const full = join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith('.md') && entry.name.toLowerCase() !== 'readme.md') files.push(full);
    if (entry.isDirectory()) {
      const skill = join(full, 'SKILL.md');
      if (statSync(skill, { throwIfNoEntry: false })?.isFile()) files.push(skill);
    }
  }
  return files;
}

export interface SkillsFolder {
  dir: string;
  /** Hash of every file's path and content: an unchanged folder is skipped on re-ingest. */
  contentHash: string;
  skills: SkillFile[];
  skipped: SkippedFile[];
}

/** Reads a folder; a bad file is reported in `skipped` with its path and reason, the rest load. */
export function readSkillsFolder(dir: string): SkillsFolder {
  const abs = resolve(dir);
  const hash = createHash('sha256');
  const skills: SkillFile[] = [];
  const skipped: SkippedFile[] = [];
  const seen = new Map<string, string>();
  for (const path of listSkillFiles(abs)) {
    const text = readFileSync(path, 'utf8');
    hash.update(path).update('\0').update(text).update('\0');
    try {
      const skill = parseSkillFile(text, path);
      const other = seen.get(skill.frontMatter.name);
      if (other) throw new SkillFileError(`name "${skill.frontMatter.name}" is already used by ${other}`);
      seen.set(skill.frontMatter.name, path);
      skills.push(skill);
    } catch (err) {
      skipped.push({ path, reason: err instanceof SkillFileError ? err.message : String(err) });
    }
  }
  return { dir: abs, contentHash: hash.digest('hex'), skills, skipped };
}

/** A skill as a prompt specialist; `server/*` tool patterns expand against the known tool ids. */
export function skillToSpecialist(skill: SkillFile, sourceId: string, knownToolIds: string[]): SpecialistRecord {
  const fm = skill.frontMatter;
  const tools = fm.tools.flatMap((t) =>
    t.endsWith('/*') ? knownToolIds.filter((id) => id.startsWith(t.slice(0, -1))).sort() : [t],
  );
  return {
    id: fm.name,
    name: fm.name,
    description: fm.description,
    kind: 'prompt',
    domains: fm.domains,
    prompt: skill.prompt,
    endpoint: '',
    modelRole: fm.model_role,
    tools: [...new Set(tools)],
    sourceId,
    available: true,
  };
}
