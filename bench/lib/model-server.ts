/**
 * Starts the scripted model in a child process (bench/lib/model-process.ts) and reads its request
 * log: the model's own clock for when each call arrived and was answered, and the call count.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LogEntry {
  arrivedAt: number;
  finishedAt?: number;
  role?: string;
  runId?: string;
  status?: number;
  aborted: boolean;
}

export type ModelProcessRequest =
  | { id: number; cmd: 'length' }
  | { id: number; cmd: 'entries'; from: number }
  | { id: number; cmd: 'clear' }
  | { id: number; cmd: 'latency'; ms: number }
  | { id: number; cmd: 'inflight' };

export type ModelProcessReply =
  { id: number; url: string } | { id: number; length: number } | { id: number; entries: LogEntry[] };

export interface ModelServer {
  /** The model process's id (its CPU time is in /proc/<pid>/stat). */
  pid: number;
  /** The latency it started with (see setLatency). */
  latencyMs: number;
  /** Changes the fixed latency of calls arriving from now on. */
  setLatency(ms: number): Promise<void>;
  /** Calls arrived and not yet answered. */
  inFlight(): Promise<number>;
  /** OpenAI base URL (…/v1). */
  baseUrl: string;
  /** Number of requests logged so far (since the last clear). */
  length(): Promise<number>;
  entries(from?: number): Promise<LogEntry[]>;
  clear(): Promise<void>;
  close(): Promise<void>;
}

const entry = fileURLToPath(new URL('./model-process.ts', import.meta.url));

export async function startModelServer(latencyMs: number): Promise<ModelServer> {
  const child: ChildProcess = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_LATENCY_MS: String(latencyMs) },
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 1;
  const waiting = new Map<number, (reply: ModelProcessReply) => void>();
  const started = new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`scripted model process exited with ${code}`)));
    waiting.set(0, (reply) => resolve((reply as { url: string }).url));
  });
  child.on('message', (reply: ModelProcessReply) => {
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const url = await started;
  const ask = <T extends ModelProcessReply>(req: Omit<ModelProcessRequest, 'id'>): Promise<T> =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, (reply) => resolve(reply as T));
      child.send({ ...req, id });
    });
  return {
    pid: child.pid!,
    latencyMs,
    baseUrl: `${url}/v1`,
    length: async () => (await ask<{ id: number; length: number }>({ cmd: 'length' })).length,
    entries: async (from = 0) =>
      (await ask<{ id: number; entries: LogEntry[] }>({ cmd: 'entries', from } as never)).entries,
    clear: async () => void (await ask({ cmd: 'clear' })),
    setLatency: async (ms) => void (await ask({ cmd: 'latency', ms } as never)),
    inFlight: async () => (await ask<{ id: number; length: number }>({ cmd: 'inflight' })).length,
    close: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.disconnect();
        setTimeout(() => child.kill(), 3000).unref();
      }),
  };
}

/**
 * Time the run spent outside the model server: its wall time minus the union of its calls'
 * [arrivedAt, finishedAt] intervals. This is what orchestration, the HTTP client and JSON cost.
 */
export function outsideModelMs(calls: LogEntry[], startedAt: number, endedAt: number): number {
  const spans = calls
    .filter((c) => c.finishedAt !== undefined)
    .map((c) => [c.arrivedAt, c.finishedAt!] as const)
    .sort((a, b) => a[0] - b[0]);
  let busy = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const [s, e] of spans) {
    if (s > curEnd) {
      if (curEnd > curStart) busy += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else if (e > curEnd) curEnd = e;
  }
  if (curEnd > curStart) busy += curEnd - curStart;
  return endedAt - startedAt - busy;
}
