/**
 * Acting as the model behind the relay model (src/relay-model/) in tests: waiting for a request file
 * and answering every request of a folder with a function of it. No vitest import.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CompletionRequest } from '../../src/scripted-model/answer.ts';

export interface RelayRequestFile {
  id: string;
  arrivedAt: string;
  headers: Record<string, string>;
  body: CompletionRequest & { tool_choice?: unknown };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The parsed `<id>.request.json` once it exists (polled; throws after timeoutMs). */
export async function waitForRequest(dir: string, id: string, timeoutMs = 10_000): Promise<RelayRequestFile> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return JSON.parse(await readFile(join(dir, `${id}.request.json`), 'utf8')) as RelayRequestFile;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`no ${id}.request.json in ${dir} after ${timeoutMs} ms: ${String(err)}`);
      await sleep(20);
    }
  }
}

export const writeAnswer = (dir: string, id: string, answer: unknown) =>
  writeFile(join(dir, `${id}.answer.json`), typeof answer === 'string' ? answer : JSON.stringify(answer));

export interface Answerer {
  /** The requests answered so far, in order. */
  answered: RelayRequestFile[];
  stop(): Promise<void>;
}

/** Answers every request that appears in `dir` with `decide(request)`, until stopped. */
export function answerAll(dir: string, decide: (request: RelayRequestFile) => unknown): Answerer {
  const answered: RelayRequestFile[] = [];
  const done = new Set<string>();
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const name of (await readdir(dir)).sort()) {
        const id = name.endsWith('.request.json') ? name.slice(0, -'.request.json'.length) : undefined;
        if (!id || done.has(id)) continue;
        done.add(id);
        const request = await waitForRequest(dir, id);
        answered.push(request);
        await writeAnswer(dir, id, decide(request));
      }
      await sleep(20);
    }
  })();
  return {
    answered,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
