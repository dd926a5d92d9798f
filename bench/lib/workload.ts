/**
 * The benchmark workload shared by the framework contenders (floor, LangGraph.js):
 * router → N parallel specialists → join → verifier → synthesizer, one model call per stage
 * and per specialist, all answered by the scripted model over HTTP through the same openai SDK.
 * The contenders differ only in how they orchestrate these calls; the calls themselves live here
 * so that each contender sends identical requests and must get the same answer.
 *
 * The user turns follow Parley's prompt convention (src/graph/prompting/prompts.ts, specialists/prompt.ts,
 * nodes/verifier.ts, nodes/synthesizer.ts: the same <parley:…> blocks and the same wording where the
 * scripted model reads it), so that Parley's engine, driven by the same query and roster, must produce
 * the very same answer (Parley sends the steps it used as data, run.finished `sources`, not as text).
 */
import OpenAI from 'openai';
import { z } from 'zod';
import { GraphPlanSchema, type PlanStep } from '../../src/graph/planning/graph-plan.ts';

/** Sequential model stages on the critical path: router, specialists, verifier, synthesizer. */
export const CRITICAL_STAGES = 4;

/** The query: directives make the scripted model plan exactly N independent steps. */
export function workloadQuery(fanOut: number): string {
  return `Summarize the quarterly sales figures for each region in short notes [[route:plan]] [[steps:${fanOut}]]`;
}

/** Model calls one run of the shared workload makes: router + N specialists + verifier + synthesizer. */
export function expectedModelCalls(fanOut: number): number {
  return fanOut + 3;
}

/**
 * A small fixed roster. None has the `research` domain, so every planned step is one parallel
 * phase; each shares a different number of words with the query (5, 4, 3, 2), so the scripted
 * planner ranks them the same way whatever order a contender lists them in.
 */
export const ROSTER = [
  { id: 'sales-analyst', description: 'Analyses quarterly sales figures for each region', domains: ['finance'] },
  { id: 'region-expert', description: 'Knows the sales figures of each region', domains: ['markets'] },
  { id: 'quarterly-reviewer', description: 'Reviews quarterly sales figures', domains: ['finance'] },
  { id: 'note-writer', description: 'Writes short notes', domains: ['writing'] },
];

/** The system prompt of a roster specialist (Parley gets the same text as the specialist's prompt). */
export const specialistPrompt = (s: { id: string; description: string }) => `You are ${s.id}: ${s.description}.`;

export interface StepOutput {
  id: string;
  specialist: string;
  status: 'succeeded' | 'failed';
  output: string;
}

export interface Verification {
  score: number;
  feedback: string;
  failedStepIds: string[];
}

/** What a contender returns for one run; the harness compares these across contenders. */
export interface RunOutcome {
  answer: string;
  steps: StepOutput[];
  score: number;
  /** The run id the model calls carry, when the contender could not choose it (Parley over HTTP). */
  runId?: string;
  /**
   * When the answer reached the caller (bench/lib/clock.ts `now()`), if that is before run() resolves:
   * Parley emits run.finished, then writes execution memory; a user has the answer at run.finished.
   */
  answeredAt?: number;
}

const VerificationSchema = z.object({
  score: z.number().min(0).max(1),
  feedback: z.string(),
  failedStepIds: z.array(z.string()),
});

const planJsonSchema = z.toJSONSchema(GraphPlanSchema, { io: 'input' }) as Record<string, unknown>;
const verificationJsonSchema = z.toJSONSchema(VerificationSchema) as Record<string, unknown>;

/** One openai SDK client per contender process, no retries (a failure must show, not hide). */
export function createModelClient(baseURL: string): OpenAI {
  return new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0, timeout: 60_000 });
}

const MODEL = 'scripted';

function headers(role: string, runId: string) {
  return { 'x-parley-role': role, 'x-parley-run-id': runId };
}

const block = (name: string, content: string) => `<parley:${name}>${content}</parley:${name}>`;
const stepsBlock = (steps: StepOutput[]) =>
  block(
    'steps',
    JSON.stringify(steps.map((s) => ({ id: s.id, specialist: s.specialist, status: s.status, output: s.output }))),
  );

export async function planSteps(client: OpenAI, runId: string, query: string): Promise<PlanStep[]> {
  const res = await client.chat.completions.create(
    {
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are the router. Plan independent steps for the specialists below.' },
        {
          role: 'user',
          content: [block('query', query), block('specialists', JSON.stringify(ROSTER))].join('\n\n'),
        },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'graph_plan', schema: planJsonSchema } },
    },
    { headers: headers('router', runId) },
  );
  return GraphPlanSchema.parse(JSON.parse(res.choices[0]?.message.content ?? '')).steps;
}

export async function runStep(client: OpenAI, runId: string, query: string, step: PlanStep): Promise<StepOutput> {
  const specialist = ROSTER.find((s) => s.id === step.specialist) ?? {
    id: step.specialist,
    description: 'a specialist',
  };
  const res = await client.chat.completions.create(
    {
      model: MODEL,
      messages: [
        { role: 'system', content: specialistPrompt(specialist) },
        {
          role: 'user',
          content: `The user's request: ${query}\n\nYour objective (step ${step.id}): ${step.objective}`,
        },
      ],
    },
    { headers: headers('specialist', runId) },
  );
  return {
    id: step.id,
    specialist: step.specialist,
    status: 'succeeded',
    output: res.choices[0]?.message.content ?? '',
  };
}

export async function verify(
  client: OpenAI,
  runId: string,
  query: string,
  steps: StepOutput[],
  round: number,
): Promise<Verification> {
  const res = await client.chat.completions.create(
    {
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are the verifier. Score how well the steps answer the query.' },
        {
          role: 'user',
          content: [block('query', query), stepsBlock(steps), block('round', String(round))].join('\n\n'),
        },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'verification', schema: verificationJsonSchema } },
    },
    { headers: headers('verifier', runId) },
  );
  return VerificationSchema.parse(JSON.parse(res.choices[0]?.message.content ?? ''));
}

/** Streams the answer (as a chat UI needs it, and as Parley's synthesizer does) and returns it whole. */
export async function synthesize(client: OpenAI, runId: string, query: string, steps: StepOutput[]): Promise<string> {
  const stream = await client.chat.completions.create(
    {
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are the synthesizer. Write the final answer from the step results.' },
        { role: 'user', content: [block('query', query), stepsBlock(steps)].join('\n\n') },
      ],
      stream: true,
      stream_options: { include_usage: true },
    },
    { headers: headers('synthesizer', runId) },
  );
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

/** Verifier threshold and round bound shared by the contenders (the same as Parley's defaults). */
export const ACCEPT_SCORE = 0.7;
export const MAX_ROUNDS = 2;
