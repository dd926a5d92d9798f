/** Helpers for the time-travel tests (docs/time-travel.md): run over POST /stream, list checkpoints, fork, follow. */
import type { GraphEvent } from '../../src/graph/run/events.ts';
import type { CheckpointEntry } from '../../src/graph/timetravel/checkpoint-list.ts';
import type { RunCheckpoint } from '../../src/graph/timetravel/checkpoints.ts';
import type { Parley } from '../../src/server.ts';
import { postJson, readAll } from './protocols/sse-read.ts';

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A whole run over POST /stream; resolves once it is recorded. */
export async function runToEnd(
  parley: Parley,
  url: string,
  key: string,
  body: Record<string, unknown>,
): Promise<GraphEvent[]> {
  const res = await postJson(`${url}/stream`, body, bearer(key));
  if (res.status !== 200) throw new Error(`POST /stream answered ${res.status}: ${await res.text()}`);
  const events = (await readAll(res)).map((m) => m.json);
  await parley.engine.get(events[0]!.runId)?.result;
  return events;
}

/** GET /api/runs/:id/checkpoints: the light list (no plan, no outputs). */
export async function listCheckpoints(url: string, key: string, runId: string): Promise<CheckpointEntry[]> {
  const res = await fetch(`${url}/api/runs/${runId}/checkpoints`, { headers: bearer(key) });
  if (res.status !== 200) throw new Error(`checkpoints answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { checkpoints: CheckpointEntry[] }).checkpoints;
}

/** GET /api/runs/:id/checkpoints/:checkpoint: one checkpoint in full. */
export async function getCheckpoint(url: string, key: string, runId: string, id: string): Promise<RunCheckpoint> {
  const res = await fetch(`${url}/api/runs/${runId}/checkpoints/${id}`, { headers: bearer(key) });
  if (res.status !== 200) throw new Error(`checkpoint ${id} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { checkpoint: RunCheckpoint }).checkpoint;
}

/** POST /api/runs/:id/fork; the new run's events once it ended (or the refusal). */
export async function fork(
  parley: Parley,
  url: string,
  key: string,
  runId: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; events: GraphEvent[] }> {
  const res = await postJson(`${url}/api/runs/${runId}/fork`, body, bearer(key));
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) return { status: res.status, json, events: [] };
  const events = await followToEnd(parley, url, key, String(json.runId));
  return { status: res.status, json, events };
}

export async function followToEnd(parley: Parley, url: string, key: string, runId: string): Promise<GraphEvent[]> {
  const res = await fetch(`${url}/api/runs/${runId}/events`, { headers: bearer(key) });
  const events = (await readAll(res)).map((m) => m.json);
  await parley.engine.get(runId)?.result;
  return events;
}
