/**
 * Why a run record cannot be stored, or undefined. The recorder checks a record before it joins a
 * batch, so a record of the wrong shape fails its own caller with a clear message and never the
 * batch it would join.
 */
import type { RunRecord } from '../store.ts';

const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isText = (v: unknown): v is string => typeof v === 'string';

export function invalidRunRecord(run: RunRecord): string | undefined {
  if (typeof run !== 'object' || run === null) return 'a run record must be an object';
  const at = `run ${JSON.stringify(run.id)}`;
  if (!isText(run.id) || run.id === '') return 'a run record needs a non-empty string id';
  for (const key of ['threadId', 'query', 'protocol', 'callerId', 'startedAt', 'status'] as const) {
    if (!isText(run[key])) return `${at}: ${key} must be a string`;
  }
  for (const key of ['answer', 'error', 'teamConfigId'] as const) {
    if (run[key] !== undefined && !isText(run[key])) return `${at}: ${key} must be a string when set`;
  }
  for (const key of ['durationMs', 'tokens'] as const)
    if (!isFiniteNumber(run[key])) return `${at}: ${key} must be a finite number`;
  const origin = run.forkedFrom;
  if (
    origin !== undefined &&
    !(typeof origin === 'object' && origin !== null && isText(origin.runId) && isText(origin.checkpoint))
  )
    return `${at}: forkedFrom must be { runId, checkpoint } when set`;
  for (const key of ['costUsd', 'score'] as const) {
    if (run[key] !== null && run[key] !== undefined && !isFiniteNumber(run[key]))
      return `${at}: ${key} must be a finite number or null`;
  }
  if (!Array.isArray(run.steps)) return `${at}: steps must be an array`;
  const stepIds = new Set<string>();
  for (const s of run.steps) {
    const where = `${at}, step ${JSON.stringify(s?.id)}`;
    if (typeof s !== 'object' || s === null || !isText(s.id) || s.id === '')
      return `${at}: every step needs a non-empty string id`;
    if (stepIds.has(s.id)) return `${where}: two steps have this id`;
    stepIds.add(s.id);
    for (const key of ['specialist', 'objective', 'status'] as const)
      if (!isText(s[key])) return `${where}: ${key} must be a string`;
    for (const key of ['output', 'error'] as const)
      if (s[key] !== undefined && !isText(s[key])) return `${where}: ${key} must be a string when set`;
    for (const key of ['durationMs', 'tokens'] as const)
      if (!isFiniteNumber(s[key])) return `${where}: ${key} must be a finite number`;
    if (s.costUsd !== null && s.costUsd !== undefined && !isFiniteNumber(s.costUsd))
      return `${where}: costUsd must be a finite number or null`;
    if (
      !Array.isArray(s.toolCalls) ||
      !s.toolCalls.every((c) => typeof c === 'object' && c !== null && isText(c.tool) && isText(c.status))
    ) {
      return `${where}: toolCalls must be a list of { tool, status }`;
    }
  }
  return undefined;
}
