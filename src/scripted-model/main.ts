/** `npm run scripted-model`: the scripted model standalone, configured from SCRIPTED_* env vars. */
import { startScriptedModel } from './server.ts';
import { FAULT_KINDS, isFaultKind, parseFaultRules, type FaultKind } from './faults.ts';
import { parseProfiles } from './profiles.ts';

function fail(message: string): never {
  console.error(`scripted-model: ${message}`);
  process.exit(2);
}

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) fail(`${name}=${JSON.stringify(raw)} is invalid: a non-negative integer`);
  return n;
}

const rateRaw = process.env.SCRIPTED_FAULT_RATE ?? '0';
const faultRate = Number(rateRaw);
if (!(faultRate >= 0 && faultRate <= 1))
  fail(`SCRIPTED_FAULT_RATE=${JSON.stringify(rateRaw)} is invalid: a number from 0 to 1`);
const faultKinds = (process.env.SCRIPTED_FAULTS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const kind of faultKinds)
  if (!isFaultKind(kind)) fail(`SCRIPTED_FAULTS has ${JSON.stringify(kind)}: allowed are ${FAULT_KINDS.join(', ')}`);
let faults;
try {
  faults = process.env.SCRIPTED_FAULT_RULES ? parseFaultRules(JSON.parse(process.env.SCRIPTED_FAULT_RULES)) : undefined;
} catch (err) {
  fail(`SCRIPTED_FAULT_RULES is invalid: ${err instanceof Error ? err.message : String(err)}`);
}

const profile = process.env.SCRIPTED_PROFILE ?? 'openai';
try {
  parseProfiles(profile);
} catch (err) {
  fail(`SCRIPTED_PROFILE is invalid: ${err instanceof Error ? err.message : String(err)}`);
}

const model = await startScriptedModel({
  profile,
  host: process.env.SCRIPTED_HOST || '127.0.0.1',
  port: intEnv('SCRIPTED_PORT', 8788),
  latencyMs: intEnv('SCRIPTED_LATENCY_MS', 0),
  perTokenMs: intEnv('SCRIPTED_PER_TOKEN_MS', 0),
  faultRate,
  faultKinds: faultKinds as FaultKind[],
  faults,
  seed: intEnv('SCRIPTED_SEED', 1),
  logLimit: intEnv('SCRIPTED_LOG_LIMIT', 10_000),
});
console.error(
  `Scripted model listening (profile ${profile}): point an OpenAI client at ${model.url}/v1 (any API key). Request log: ${model.url}/_scripted/log`,
);

const stop = () => {
  void model.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
