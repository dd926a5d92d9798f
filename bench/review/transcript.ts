/**
 * transcript.md of a review run: per turn the query, every GraphEvent summarized (long texts whole,
 * folded in <details>), the final answer; then the model calls and input/output tokens per role, read
 * from the relay's request and answer files and counted as the relay counted them for `usage`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GraphEvent } from '../../src/graph/run/events.ts';
import { readAnswer } from '../../src/relay-model/answer-file.ts';
import type { CompletionRequest } from '../../src/scripted-model/answer.ts';
import { outputTokensOf, promptTokensOf } from '../../src/scripted-model/completion-reply.ts';

export interface TurnRecord {
  query: string;
  mode?: string;
  threadId?: string;
  events: GraphEvent[];
  approvals: string[];
}

export interface ModelCall {
  id: string;
  role: string;
  runId?: string;
  inputTokens: number;
  /** Undefined when the request was never answered. */
  outputTokens?: number;
}

const fold = (summary: string, text: string) =>
  `<details><summary>${summary}</summary>\n\n${'```'}text\n${text.replaceAll('```', '`\u200b``')}\n${'```'}\n\n</details>`;

const json = (v: unknown) => JSON.stringify(v);

/** One GraphEvent as a markdown list item (with a folded block for long text). */
export function summarize(e: GraphEvent): string {
  switch (e.type) {
    case 'run.started':
      return `run.started — mode ${e.mode}, thread \`${e.threadId}\`, run \`${e.runId}\``;
    case 'node.started':
      return `node.started ${e.node}`;
    case 'node.finished':
      return `node.finished ${e.node} (${e.durationMs} ms${e.next ? `, next ${e.next}` : ''})`;
    case 'route.decided':
      return `**route.decided** ${e.stage}: ${e.reason}${e.candidates?.length ? ` (candidates: ${e.candidates.join(', ')})` : ''}`;
    case 'plan.ready':
      return [
        `**plan.ready** round ${e.round}${e.cause ? ` (cause ${e.cause}: ${e.failedStepIds?.join(', ')})` : ''}:`,
        ...e.plan.steps.map(
          (s) =>
            `  - \`${s.id}\` → ${s.specialist}${s.dependsOn?.length ? ` after ${s.dependsOn.join(', ')}` : ''}: ${s.objective}`,
        ),
      ].join('\n');
    case 'step.started':
      return `step.started \`${e.stepId}\` (${e.specialist}, attempt ${e.attempt})`;
    case 'step.spawned':
      return `**step.spawned** \`${e.stepId}\` by \`${e.parentStepId}\` → ${e.specialist} (${e.role}): ${e.objective}`;
    case 'message.sent':
      return `message.sent ${e.from} → ${e.to}: ${e.preview}`;
    case 'context.written':
      return `context.written by \`${e.stepId}\` key ${e.key}: ${e.preview}`;
    case 'step.finished': {
      const head = `**step.finished** \`${e.stepId}\` (${e.specialist}) ${e.status}${e.error ? `: ${e.error}` : ''}`;
      return e.output ? `${head}\n\n${fold(`output, ${e.output.length} characters`, e.output)}` : head;
    }
    case 'tool.started':
      return `tool.started \`${e.tool}\` (${e.toolCallId}) ${json(e.args)}`;
    case 'tool.finished': {
      const head = `tool.finished \`${e.tool}\` ${e.status}${e.error ? `: ${e.error}` : ''} (${e.durationMs} ms)`;
      return e.result ? `${head}\n\n${fold(`result, ${e.result.length} characters`, e.result)}` : head;
    }
    case 'approval.requested':
      return `**approval.requested** \`${e.request.id}\` ${e.request.kind}${
        e.request.kind === 'tool' ? `: ${e.request.toolCalls.map((t) => `${t.tool} ${json(t.args)}`).join('; ')}` : ''
      }`;
    case 'approval.resolved':
      return `approval.resolved \`${e.outcome.requestId}\` by ${e.outcome.resolvedBy}`;
    case 'verify.result':
      return `**verify.result** round ${e.round}: score ${e.score}, next ${e.next}${e.failedStepIds.length ? `, failed ${e.failedStepIds.join(', ')}` : ''} — ${e.feedback}`;
    case 'council.stage':
      return e.verdict
        ? `**council.stage** ${e.stage} (${e.detail})\n\n${fold('verdict', JSON.stringify(e.verdict, null, 2))}`
        : `**council.stage** ${e.stage} (${e.detail})`;
    case 'run.finished':
      return `**run.finished** ${e.status}${e.error ? `: ${e.error}` : ''} — ${e.usage.modelCalls} model calls, ${e.usage.inputTokens} in / ${e.usage.outputTokens} out tokens, ${e.usage.toolCalls} tool calls, ${e.durationMs} ms`;
    default: {
      const { runId: _r, seq: _s, at: _a, type, ...rest } = e as GraphEvent & Record<string, unknown>;
      return `${type} ${json(rest)}`;
    }
  }
}

/** The events as list items; runs of answer.delta, step.delta, model.thought and usage are folded into one line each. */
export function eventLines(events: GraphEvent[]): string[] {
  const out: string[] = [];
  const repeated = new Set(['answer.delta', 'step.delta', 'model.thought', 'usage']);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (!repeated.has(e.type)) {
      out.push(`- ${summarize(e)}`);
      continue;
    }
    let j = i;
    while (j + 1 < events.length && events[j + 1]!.type === e.type) j++;
    const group = events.slice(i, j + 1);
    if (e.type === 'usage') {
      const last = group.at(-1) as Extract<GraphEvent, { type: 'usage' }>;
      out.push(
        `- usage ×${group.length}: now ${last.usage.modelCalls} model calls, ${last.usage.inputTokens} in / ${last.usage.outputTokens} out`,
      );
    } else {
      const chars = group.reduce((n, g) => n + ((g as { text?: string }).text?.length ?? 0), 0);
      out.push(`- ${e.type} ×${group.length} (${chars} characters)`);
    }
    i = j;
  }
  return out;
}

/** Every request of `runIds` the relay wrote in `dir`, with its tokens (output only when answered). */
export async function modelCalls(dir: string, runIds: Set<string>): Promise<ModelCall[]> {
  const calls: ModelCall[] = [];
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.request.json')).sort()) {
    const id = name.slice(0, -'.request.json'.length);
    const file = JSON.parse(await readFile(join(dir, name), 'utf8')) as {
      headers: Record<string, string>;
      body: CompletionRequest;
    };
    const runId = file.headers['x-parley-run-id'];
    if (!runId || !runIds.has(runId)) continue;
    let outputTokens: number | undefined;
    try {
      const read = readAnswer(await readFile(join(dir, `${id}.answer.json`), 'utf8'), file.body, 'call');
      if (read.ok) outputTokens = outputTokensOf(read.answer);
    } catch {
      outputTokens = undefined;
    }
    calls.push({
      id,
      role: file.headers['x-parley-role'] ?? '(none)',
      runId,
      inputTokens: promptTokensOf(file.body.messages),
      outputTokens,
    });
  }
  return calls;
}

export function callTable(calls: ModelCall[]): string[] {
  const byRole = new Map<string, { calls: number; input: number; output: number }>();
  for (const c of calls) {
    const row = byRole.get(c.role) ?? { calls: 0, input: 0, output: 0 };
    row.calls++;
    row.input += c.inputTokens;
    row.output += c.outputTokens ?? 0;
    byRole.set(c.role, row);
  }
  const total = { calls: calls.length, input: 0, output: 0 };
  const rows = [...byRole].map(([role, r]) => {
    total.input += r.input;
    total.output += r.output;
    return `| ${role} | ${r.calls} | ${r.input} | ${r.output} |`;
  });
  return [
    '| role | calls | input tokens | output tokens |',
    '| --- | ---: | ---: | ---: |',
    ...rows,
    `| **total** | **${total.calls}** | **${total.input}** | **${total.output}** |`,
    '',
    'Requests, in order: ' + calls.map((c) => `\`${c.id}\``).join(', '),
  ];
}

export interface TranscriptInput {
  scenario: string;
  about: string;
  turns: TurnRecord[];
  calls: ModelCall[];
  workspaceFiles: { path: string; text: string }[];
}

export function renderTranscript(t: TranscriptInput): string {
  const out = [`# Review run: ${t.scenario}`, '', `Scenario: ${t.about}.`, ''];
  for (const [i, turn] of t.turns.entries()) {
    const finished = turn.events.find((e) => e.type === 'run.finished');
    out.push(
      `## Turn ${i + 1}`,
      '',
      `**Query** (mode ${turn.mode ?? 'auto'}${turn.threadId ? `, threadId \`${turn.threadId}\`` : ''}):`,
      '',
      `> ${turn.query}`,
      '',
      '### Events',
      '',
      ...eventLines(turn.events),
      '',
    );
    if (turn.approvals.length)
      out.push('### Approvals (given by the driver)', '', ...turn.approvals.map((a) => `- ${a}`), '');
    out.push('### Final answer', '');
    if (finished?.type === 'run.finished' && finished.answer) out.push(finished.answer, '');
    else
      out.push(
        `_(no answer: ${finished?.type === 'run.finished' ? `${finished.status}, ${finished.error ?? ''}` : 'the run did not finish'})_`,
        '',
      );
  }
  out.push('## Model calls per role', '', ...callTable(t.calls), '');
  if (t.workspaceFiles.length) {
    out.push('## Files in the workspace after the run', '');
    for (const f of t.workspaceFiles) out.push(`### ${f.path}`, '', fold(`${f.text.length} characters`, f.text), '');
  }
  return `${out.join('\n')}\n`;
}
