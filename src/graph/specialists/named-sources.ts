/**
 * The sources of a step by names a person knows them by (events.ts NamedSource): the files and web pages
 * its tool calls named in their arguments, else the tool itself; a remote agent by its name. They travel
 * as data (run.finished `sources`) and become the numbered references of an answer that asks for
 * citations (nodes/answer-references.ts) — never a step id.
 */
import { basename } from 'node:path';
import type { NamedSource } from '../run/events.ts';

/** Argument names that hold a file path or a web address, as the common MCP servers name them. */
const PATH_KEYS = ['path', 'paths', 'file', 'files', 'filename', 'source', 'destination'];
const URL_KEYS = ['url', 'urls', 'uri', 'href', 'link'];

const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.filter((v): v is string => typeof v === 'string')
      : [];

const isWeb = (text: string) => /^https?:\/\//i.test(text);

function fromText(text: string): NamedSource | undefined {
  const value = text.trim();
  if (!value || value.length > 2000) return undefined;
  if (isWeb(value)) return { kind: 'web', title: value, uri: value };
  const path = value.replace(/^file:\/\//i, '');
  const name = basename(path);
  return name && name !== '.' && name !== '/' ? { kind: 'file', title: name, uri: path } : undefined;
}

/** The files and addresses a tool call's arguments name, as written (the verifier's evidence of what a call touched). */
export function callTargets(args: Record<string, unknown>): string[] {
  return [...PATH_KEYS, ...URL_KEYS]
    .flatMap((key) => strings(args[key]))
    .map((s) => s.trim())
    .filter((s) => s && s.length <= 2000);
}

/** What one successful tool call read or wrote, by name: the files and pages its arguments name, else the tool. */
export function namedSourcesOfCall(toolId: string, args: Record<string, unknown>): NamedSource[] {
  const named = callTargets(args).map(fromText);
  const found = named.filter((s): s is NamedSource => s !== undefined);
  return found.length ? found : [{ kind: 'tool', title: toolId }];
}

/** A remote agent's answer, named by the agent, with the web pages its artifacts linked. */
export function namedSourcesOfPeer(name: string, endpoint: string, links: string[]): NamedSource[] {
  const pages = links.filter(isWeb).map((url): NamedSource => ({ kind: 'web', title: url, uri: url }));
  return [{ kind: 'agent', title: name, uri: endpoint }, ...pages];
}

/** Adds sources not yet listed (same kind and uri, or title when there is no uri). */
export function addNamed(list: NamedSource[], more: NamedSource[]): void {
  const key = (s: NamedSource) => `${s.kind}:${s.uri ?? s.title}`;
  const seen = new Set(list.map(key));
  for (const s of more) {
    if (seen.has(key(s))) continue;
    seen.add(key(s));
    list.push(s);
  }
}
