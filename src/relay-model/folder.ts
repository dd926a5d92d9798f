/**
 * The relay's folder: request ids (`007-planner`), the request files written for each call, and the
 * wait for its answer file. The answer file is polled (fs.watch misses editors that write through a
 * temporary file and rename it); a version that does not read is logged once and read again when
 * the file changes.
 */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import type { AnswerRead } from './answer-file.ts';
import type { ReplyAnswer } from '../scripted-model/completion-reply.ts';
import { wait } from '../scripted-model/completion-reply.ts';

const ID = /^(\d+)-/;

/** The first free sequence number in `dir` (after any request a previous relay left there), creating it when missing. */
export async function firstSequence(dir: string): Promise<number> {
  await mkdir(dir, { recursive: true });
  let highest = 0;
  for (const name of await readdir(dir)) {
    const m = ID.exec(name);
    if (m) highest = Math.max(highest, Number(m[1]));
  }
  return highest + 1;
}

/** `007-planner`: the zero-padded sequence number and the role (letters, digits, - and _ only). */
export function requestId(sequence: number, role: string | undefined): string {
  const safe =
    (role ?? '')
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '_')
      .slice(0, 40) || 'request';
  return `${String(sequence).padStart(3, '0')}-${safe}`;
}

export const requestJsonName = (id: string) => `${id}.request.json`;
export const requestMdName = (id: string) => `${id}.request.md`;
export const answerName = (id: string) => `${id}.answer.json`;

/** Writes a file whole: into a temporary name, then renamed, so a reader never sees half of it. */
export async function writeWhole(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

export type WaitOutcome = { kind: 'answer'; answer: ReplyAnswer } | { kind: 'timeout' } | { kind: 'aborted' };

export interface WatchOptions {
  pollMs: number;
  read: (text: string) => AnswerRead;
  /** Called once per version of the file that does not read. */
  onInvalid: (error: string) => void;
}

/**
 * Watches one answer file: the function it returns waits until the file holds a valid answer, `timeoutMs`
 * passes or the signal aborts. It may be called again after a timeout (the relay waits in slices to keep
 * a connection alive); a version already found invalid is not reported twice.
 */
export function watchAnswer(path: string, options: WatchOptions) {
  let lastInvalid: string | undefined;
  return async (timeoutMs: number, signal: AbortSignal): Promise<WaitOutcome> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (signal.aborted) return { kind: 'aborted' };
      let text: string | undefined;
      try {
        text = await readFile(path, 'utf8');
      } catch {
        text = undefined; // not there yet
      }
      if (text !== undefined && text !== lastInvalid) {
        const read = options.read(text);
        if (read.ok) return { kind: 'answer', answer: read.answer };
        lastInvalid = text;
        options.onInvalid(read.error);
      }
      const left = deadline - Date.now();
      if (left <= 0) return { kind: 'timeout' };
      if (!(await wait(Math.min(options.pollMs, left), signal))) return { kind: 'aborted' };
    }
  };
}
