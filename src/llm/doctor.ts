/**
 * `parley doctor`: probes each configured endpoint and model with a few cheap calls (chat,
 * streaming, usage in streams, json_schema, a forced tool call, an image, embeddings when
 * configured), then says which structured strategy each role will use, whether the price catalog
 * knows the model, and what to change. The pipeline cannot work when chat fails or a structured
 * call fails under the strategy the role will use: then the exit code is 1.
 */
import OpenAI from 'openai';
import { z } from 'zod';
import type { ModelSettings, RoleModelConfig } from './settings.ts';
import { silentLogger } from '../log.ts';
import type { StructuredStrategy } from './capabilities.ts';
import { createModelClient } from './client.ts';
import { extractJson } from './extract-json.ts';
import { presetFor } from './presets.ts';
import type { PriceCatalog } from './prices.ts';
import { MODEL_ROLES, type ModelRole } from './types.ts';

export type ProbeResult = { ok: true; note?: string } | { ok: false; note: string };
type ProbeName = 'chat' | 'streaming' | 'stream_usage' | 'json_schema' | 'tools' | 'images' | 'embeddings';

export interface EndpointReport {
  baseUrl: string;
  model: string;
  preset: string;
  roles: ModelRole[];
  probes: Partial<Record<ProbeName, ProbeResult>>;
  price: 'found' | 'missing';
  strategies: { role: ModelRole; strategy: StructuredStrategy; works: boolean; note?: string }[];
  advice: string[];
}

export interface DoctorReport {
  endpoints: EndpointReport[];
  ok: boolean;
}

type Fetch = NonNullable<ConstructorParameters<typeof OpenAI>[0]>['fetch'];
// 1×1 transparent PNG: the cheapest image there is.
const PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const ProbeSchema = z.object({ ok: z.boolean() });
const PROBE_JSON_SCHEMA = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
  additionalProperties: false,
};
/** The roles whose calls are structured (route, plan, verification, council review and verdict). */
const STRUCTURED_ROLES: readonly ModelRole[] = [
  'router',
  'planner',
  'verifier',
  'council_reviewer',
  'council_chairman',
];
const PROBE_ORDER: readonly ProbeName[] = [
  'chat',
  'streaming',
  'stream_usage',
  'json_schema',
  'tools',
  'images',
  'embeddings',
];
const DoctorRoute = z.object({ route: z.enum(['direct', 'plan', 'council']), reason: z.string() });

const isProbeAnswer = (text: string): boolean => {
  try {
    return ProbeSchema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
};

const failure = (err: unknown): ProbeResult => {
  const status = err instanceof OpenAI.APIError ? `HTTP ${err.status}: ` : '';
  return { ok: false, note: `${status}${err instanceof Error ? err.message : String(err)}`.slice(0, 200) };
};

async function probe(run: () => Promise<ProbeResult>): Promise<ProbeResult> {
  try {
    return await run();
  } catch (err) {
    return failure(err);
  }
}

/** The raw probes of one endpoint and model, with the parameters its capabilities say to send. */
async function probeEndpoint(
  settings: RoleModelConfig,
  model: string,
  embeddingsModel: string | undefined,
  fetch: Fetch | undefined,
) {
  const sdk = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey,
    maxRetries: 0,
    timeout: Math.min(settings.timeoutMs, 30_000),
    fetch,
    defaultHeaders: { ...settings.headers, 'x-parley-role': 'doctor' },
  });
  // No max tokens or temperature: the probes ask about features, and the roles' own calls (below) learn those.
  const base = { model };
  const user = (text: string) => [{ role: 'user' as const, content: text }];
  const probes: Partial<Record<ProbeName, ProbeResult>> = {};
  probes.chat = await probe(async () => {
    const r = await sdk.chat.completions.create({ ...base, messages: user('Reply with the word OK.') });
    return r.choices[0]?.message ? { ok: true } : { ok: false, note: 'no message in the answer' };
  });
  probes.streaming = await probe(async () => {
    const stream = await sdk.chat.completions.create({
      ...base,
      messages: user('Reply with the word OK.'),
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage = false;
    let text = '';
    for await (const chunk of stream) {
      if (chunk.usage) usage = true;
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    probes.stream_usage = usage
      ? { ok: true }
      : { ok: false, note: 'no usage chunk: streamed calls have unknown cost' };
    return text ? { ok: true } : { ok: false, note: 'the stream had no text' };
  });
  probes.json_schema = await probe(async () => {
    const r = await sdk.chat.completions.create({
      ...base,
      messages: user('Is the sky blue? Answer as JSON.'),
      response_format: { type: 'json_schema', json_schema: { name: 'doctor_probe', schema: PROBE_JSON_SCHEMA } },
    });
    const text = r.choices[0]?.message.content ?? '';
    if (isProbeAnswer(text)) return { ok: true };
    const buried = isProbeAnswer(extractJson(text));
    return {
      ok: false,
      note: buried
        ? 'accepted but ignored: the JSON came wrapped in prose'
        : 'accepted but ignored: the answer is not the JSON asked for',
    };
  });
  probes.tools = await probe(async () => {
    const r = await sdk.chat.completions.create({
      ...base,
      messages: user('Is the sky blue? Call the tool.'),
      tools: [
        {
          type: 'function',
          function: { name: 'doctor_probe', description: 'Reports the answer.', parameters: PROBE_JSON_SCHEMA },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'doctor_probe' } },
    });
    const call = r.choices[0]?.message.tool_calls?.[0];
    return call ? { ok: true } : { ok: false, note: 'no tool call in the answer' };
  });
  probes.images = await probe(async () => {
    await sdk.chat.completions.create({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What colour is this pixel?' },
            { type: 'image_url', image_url: { url: PIXEL } },
          ],
        },
      ],
    });
    return { ok: true };
  });
  if (embeddingsModel) {
    probes.embeddings = await probe(async () => {
      const r = await sdk.embeddings.create({ model: embeddingsModel, input: 'doctor probe' });
      return r.data[0]?.embedding?.length ? { ok: true } : { ok: false, note: 'no vector in the answer' };
    });
  }
  return probes;
}

/** Which strategy the probes say works best. */
function bestStrategy(probes: Partial<Record<ProbeName, ProbeResult>>): StructuredStrategy {
  if (probes.json_schema?.ok) return 'json_schema';
  if (probes.tools?.ok) return 'tool';
  return 'prompt';
}

export async function runDoctor(
  model: ModelSettings,
  options: { prices: PriceCatalog; fetch?: Fetch; embeddingsModel?: string },
): Promise<DoctorReport> {
  const client = createModelClient(model, { prices: options.prices, fetch: options.fetch, logger: silentLogger });
  const groups = new Map<string, { settings: RoleModelConfig; model: string; roles: ModelRole[] }>();
  for (const role of MODEL_ROLES) {
    const settings = model.roles[role];
    const key = `${settings.baseUrl}\n${settings.model}\n${settings.apiKey}`;
    const group = groups.get(key) ?? { settings, model: settings.model, roles: [] };
    group.roles.push(role);
    groups.set(key, group);
  }
  const endpoints: EndpointReport[] = [];
  let first = true;
  for (const { settings, model: name, roles } of groups.values()) {
    const probes = await probeEndpoint(settings, name, first ? options.embeddingsModel : undefined, options.fetch);
    first = false;
    const advice: string[] = [];
    const best = bestStrategy(probes);
    const strategies: EndpointReport['strategies'] = [];
    for (const role of roles.filter((r) => STRUCTURED_ROLES.includes(r))) {
      // A real structured call, as the role makes it: what Parley learns from a 400 applies here too.
      let works = false;
      let note: string | undefined;
      if (probes.chat?.ok) {
        try {
          await client.structured({
            role,
            schema: DoctorRoute,
            schemaName: 'route',
            messages: [{ role: 'user', content: '<parley:query>hello</parley:query> Decide the route for: hello' }],
          });
          works = true;
        } catch (err) {
          note = err instanceof Error ? err.message.slice(0, 200) : String(err);
        }
      }
      strategies.push({ role, strategy: client.capabilities(role).structured, works, ...(note ? { note } : {}) });
    }
    const used = new Set(strategies.map((s) => s.strategy));
    if (!probes.chat?.ok)
      advice.push(`chat fails: check PARLEY_MODEL_BASE_URL, the API key and the model name "${name}".`);
    if (probes.json_schema && !probes.json_schema.ok && used.has('json_schema'))
      advice.push(
        `response_format json_schema is not honoured: set PARLEY_MODEL_STRUCTURED=${best} (or per role PARLEY_MODEL_<ROLE>_STRUCTURED).`,
      );
    if (probes.tools && !probes.tools.ok)
      advice.push(
        'tool calling fails: specialists with tools will answer without them; set PARLEY_MODEL_CAPABILITIES=tools=no to stop offering them.',
      );
    if (probes.stream_usage && !probes.stream_usage.ok)
      advice.push('no usage in streams: streamed answers have unknown cost; budgets count them as unknown.');
    if (probes.images && !probes.images.ok) advice.push('images are refused: set PARLEY_MODEL_CAPABILITIES=images=no.');
    const price = options.prices.priceOf(name) ? 'found' : 'missing';
    if (price === 'missing')
      advice.push(
        `no price for "${name}" in the price catalog (PARLEY_PRICES_FILE): costs will be unknown and cost budgets cannot stop a run; add it.`,
      );
    for (const s of strategies.filter((x) => !x.works))
      advice.push(
        `the ${s.role} role's structured calls fail with the ${s.strategy} strategy${s.note ? ` (${s.note})` : ''}.`,
      );
    endpoints.push({
      baseUrl: settings.baseUrl,
      model: name,
      preset: presetFor(settings).id,
      roles,
      probes,
      price,
      strategies,
      advice,
    });
  }
  const ok = endpoints.every((e) => e.probes.chat?.ok && e.strategies.every((s) => s.works));
  return { endpoints, ok };
}

/** The report as the terminal shows it. */
export function formatDoctor(report: DoctorReport): string {
  const lines: string[] = [];
  for (const e of report.endpoints) {
    lines.push(`Endpoint ${e.baseUrl} model ${e.model} (preset ${e.preset}; roles: ${e.roles.join(', ')})`);
    for (const [name, r] of PROBE_ORDER.flatMap((n) => (e.probes[n] ? [[n, e.probes[n]] as const] : [])))
      lines.push(`  ${r.ok ? 'ok  ' : 'FAIL'} ${name}${r.note ? `: ${r.note}` : ''}`);
    lines.push(`  price: ${e.price === 'found' ? 'found in the catalog' : 'MISSING from the catalog'}`);
    for (const s of e.strategies)
      lines.push(`  ${s.works ? 'ok  ' : 'FAIL'} structured output for ${s.role}: ${s.strategy}`);
    for (const a of e.advice) lines.push(`  -> ${a}`);
  }
  lines.push(
    report.ok
      ? 'The pipeline can run on this configuration.'
      : 'The pipeline CANNOT run on this configuration: see the FAIL lines above.',
  );
  return lines.join('\n');
}
