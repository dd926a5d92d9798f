/** Shared bits of the MCP server tests (HTTP and stdio): result readers and progress collection. */
import type { CallToolResult } from '@modelcontextprotocol/client';

export { NOTER, NOTE_QUERY } from './a2a-helpers.ts';

export interface AskResult {
  runId: string;
  threadId: string;
  status: string;
  answer?: string;
  error?: string;
  usage: { inputTokens: number; outputTokens: number; modelCalls: number };
}

export const structured = <T>(r: CallToolResult): T => r.structuredContent as T;
export const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** Progress notifications as they arrive, plus a way to wait for one matching a pattern. */
export function progressLog() {
  const seen: { progress: number; message?: string }[] = [];
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  return {
    seen,
    onprogress: (p: { progress: number; message?: string }) => {
      seen.push({ progress: p.progress, message: p.message });
      for (const w of [...waiters]) {
        const m = p.message?.match(w.re);
        if (m) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    },
    waitFor(re: RegExp): Promise<RegExpMatchArray> {
      for (const s of seen) {
        const m = s.message?.match(re);
        if (m) return Promise.resolve(m);
      }
      return new Promise((resolve) => waiters.push({ re, resolve }));
    },
  };
}
