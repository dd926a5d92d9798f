/**
 * Text served without auth (the public A2A agent card's skill descriptions, which come from specialist
 * and MCP server descriptions) must not name where Parley runs: no absolute local path (which also
 * carries user names, /home/alice/…), no file:// URL, no host name. Each is replaced with a neutral
 * word; what a model is told on an authenticated run is untouched (it needs the real workspace folder).
 */
import { hostname } from 'node:os';

export const LOCAL_PATH = '(a local folder)';
const LOCAL_HOST = '(this host)';

/**
 * An absolute path of two or more segments (POSIX, `~/…` or `C:\…`), not part of a URL or a word
 * (`https://x/a/b`, `and/or`): `/tmp/parley-1/workspace`, `~/notes/x`, `C:\Users\bob`.
 */
const ABSOLUTE_PATH = /(?<![\w.:/\\~-])(?:~|[A-Za-z]:)?[/\\](?:[\w.@~+-]+[/\\])+[\w.@~+-]*/g;
const FILE_URL = /\bfile:\/\/\S*/gi;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * This machine's host name as a whole word (≥ 3 characters, not "localhost"). A user name is hidden
 * where it is named: in a path. As a bare word it is too often an English one ("root") to replace.
 */
function localHostName(): RegExp | undefined {
  const name = hostname();
  return name.length >= 3 && name !== 'localhost'
    ? new RegExp(`(?<![\\w.-])${escape(name)}(?![\\w-])`, 'gi')
    : undefined;
}

export function withoutLocalDetails(text: string): string {
  const host = localHostName();
  const out = text.replace(FILE_URL, LOCAL_PATH).replace(ABSOLUTE_PATH, LOCAL_PATH);
  return host ? out.replace(host, LOCAL_HOST) : out;
}
