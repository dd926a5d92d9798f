/**
 * Every prompt of every role, rendered with the shipped config (mcp_config.json's real filesystem and
 * memory servers, specialists/) through a real run per route (test/support/prompt-tour.ts): no
 * placeholder, variable or unrendered template reaches a model; file-working specialists are told the
 * real workspace folder; read-only steps get read-only tools, the writing step its write tool.
 * `npm run prompts:render` writes the same requests to docs/prompt-reviews/rendered/.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  leftoversIn,
  modelVisibleText,
  promptKind,
  runPromptTour,
  TOUR_START,
  type PromptTour,
} from '../support/prompt-tour.ts';
import { todayNote } from '../../src/graph/prompting/today.ts';
import { CouncilVerdictSchema } from '../../src/graph/prompting/schemas.ts';
import { ofType } from '../support/run-events.ts';
import { DENIED_BY_HUMAN, DENIED_TAIL } from '../../src/graph/specialists/tool-loop.ts';

let tour: PromptTour;
beforeAll(async () => {
  tour = await runPromptTour();
}, 120_000);

const run = (name: string) => tour.runs.find((r) => r.scenario.name === name)!;
const systemOf = (r: { body: unknown }) =>
  ((r.body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === 'system')
    ?.content as string) ?? '';
const WRITES = /write_file|edit_file|move_file|create_directory|create_entities|delete_/;

describe('the prompts every role gets, with the shipped config', () => {
  it('covers every role through a real run per route, each completed', () => {
    for (const r of tour.runs) {
      expect(ofType(r.events, 'run.finished')[0], r.scenario.name).toMatchObject({ status: 'completed' });
    }
    const kinds = new Set(tour.runs.flatMap((r) => r.requests.map(promptKind)));
    for (const kind of [
      'route',
      'direct_answer',
      'graph_plan',
      'specialist',
      'verification',
      'synthesizer',
      'council_advisor',
      'council_review',
      'council_verdict',
      'team_manager',
      'team_worker',
      'judgement',
      'pairwise_judgement',
    ])
      expect(kinds, kind).toContain(kind);
  });

  it('no model request carries a placeholder, a ${…} variable, an unrendered {{…}} or "undefined"', () => {
    const found = tour.runs.flatMap((r) =>
      r.requests.flatMap((q) => leftoversIn(q).map((l) => `${r.scenario.name} / ${promptKind(q)}: ${l}`)),
    );
    expect(found).toEqual([]);
    // The shipped description, rendered: the planner reads the real workspace folder.
    const planner = run('plan-read-only').requests.find((q) => q.schemaName === 'graph_plan')!;
    expect(modelVisibleText(planner)).toContain(JSON.stringify(join(tour.dataDir, 'workspace')).slice(1, -1));
  });

  it("every role is told today's date, from the engine's clock, at the very end of its system prompt", () => {
    // The tour's clock starts at TOUR_START (Thursday 2026-01-15, 09:30 UTC) and the tour ends within the day.
    const note = todayNote(TOUR_START, 'UTC');
    expect(note).toContain('Today is Thursday 2026-01-15 (time zone UTC).');
    const requests = tour.runs.flatMap((r) => r.requests.map((q) => ({ kind: promptKind(q), system: systemOf(q) })));
    expect(requests.length).toBeGreaterThan(30);
    for (const q of requests) expect(q.system.endsWith(note), q.kind).toBe(true);
  });

  it('file-working specialists are told the real workspace folder and offered list_allowed_directories', () => {
    const workspace = join(tour.dataDir, 'workspace');
    const fileSteps = tour.runs
      .flatMap((r) => r.requests)
      .filter((q) => q.role === 'specialist' && q.tools.some((t) => t.startsWith('filesystem__')));
    expect(fileSteps.length).toBeGreaterThan(0);
    for (const q of fileSteps) {
      expect(systemOf(q)).toContain(workspace);
      expect(q.tools).toContain('filesystem__list_allowed_directories');
    }
  });

  it('read-only steps are offered read-only tools; the step that writes gets its write tool and the approval', () => {
    const reading = run('plan-read-only');
    const plan = ofType(reading.events, 'plan.ready')[0]!.plan;
    expect(plan.steps.every((s) => s.changes === false)).toBe(true);
    const readingTools = reading.requests.filter((q) => q.role === 'specialist').flatMap((q) => q.tools);
    expect(readingTools.length).toBeGreaterThan(0);
    expect(readingTools.filter((t) => WRITES.test(t))).toEqual([]);

    const writing = run('plan-write-approval');
    expect(ofType(writing.events, 'plan.ready')[0]!.plan.steps[0]!.changes).toBe(true);
    expect(writing.requests.some((q) => q.tools.includes('filesystem__write_file'))).toBe(true);
    expect(ofType(writing.events, 'approval.resolved')[0]!.outcome.resolvedBy).toBe('human');
    expect(ofType(writing.events, 'tool.finished').map((t) => [t.tool, t.status])).toContainEqual([
      'filesystem/write_file',
      'ok',
    ]);
  });

  it("the router's own reason is shown; the answer names no step and carries its sources as data", () => {
    const reading = run('plan-read-only');
    const route = ofType(reading.events, 'route.decided')[0]!;
    // The scripted router's reason for a plan, before how Parley planned it.
    expect(route.reason).toMatch(/^the query needs specialists; planning over the top \d+ candidates/);

    const plan = ofType(reading.events, 'plan.ready')[0]!.plan;
    const finished = ofType(reading.events, 'run.finished')[0]!;
    expect(finished.sources?.map((s) => ({ stepId: s.stepId, specialist: s.specialist }))).toEqual(
      plan.steps.map((s) => ({ stepId: s.id, specialist: s.specialist })),
    );
    expect(finished.answer).not.toMatch(/Steps used/);
    const synth = reading.requests.find((q) => q.role === 'synthesizer')!;
    expect(systemOf(synth)).toContain('Do not mention steps, their ids, specialists, agents');
    // The verifier passed the round with nothing for the answer to mention: no notes block, no word of one.
    const verify = ofType(reading.events, 'verify.result')[0]!;
    expect(verify).toMatchObject({ next: 'synthesize', feedback: '' });
    expect(synth.lastUserMessage).not.toContain('parley:verifier_notes');
    expect(systemOf(synth)).not.toContain('parley:verifier_notes');
  });

  it("a dynamic team's root manager is told its finish result is the answer the user reads, and it is: no synthesizer call", () => {
    const dynamic = run('dynamic');
    const manager = dynamic.requests.find((q) => promptKind(q) === 'team_manager')!;
    expect(systemOf(manager)).toContain('Your finish result is the answer the user reads.');
    expect(systemOf(manager)).toContain('do not mention agents, their ids');
    expect(dynamic.requests.map((q) => q.role)).not.toContain('synthesizer');
    const finished = ofType(dynamic.events, 'run.finished')[0]!;
    const managerStep = ofType(dynamic.events, 'step.finished').find((e) => e.stepId === 'manager')!;
    expect(finished.answer).toBe(managerStep.output);
  });

  // The prompt reviews of 2026-11-26 (docs/prompt-reviews/): what each role was missing, now said.
  it('a plan step is told its objective is its job, that its tool calls run in order, and how a denial reads', () => {
    const writing = run('plan-write-approval');
    const step = writing.requests.find((q) => q.role === 'specialist' && q.tools.includes('filesystem__write_file'))!;
    const system = systemOf(step);
    expect(system).toContain('Your objective is your job');
    expect(system).toContain('other steps may do the rest of it');
    expect(system).toContain('run one after another, in the order you give them');
    // The very words a denial's tool result starts and ends with (tool-loop.ts).
    expect(system).toContain(`starts "${DENIED_BY_HUMAN}"`);
    expect(system).toContain(`ends "${DENIED_TAIL}"`);
    expect(system).toContain('do not retry a denied call');
    // A dynamic team's agent is not a plan step: it gets its team note, not the plan step's.
    const agent = run('dynamic').requests.find((q) => q.role === 'specialist')!;
    expect(systemOf(agent)).not.toContain('You run one step of a plan');
    expect(systemOf(agent)).toContain('an agent you spawn works on meanwhile');
  });

  it("the verifier sees each step's tool calls, their status and the files they named, and is told what they prove", () => {
    const writing = run('plan-write-approval');
    const verify = writing.requests.find((q) => q.schemaName === 'verification')!;
    expect(systemOf(verify)).toContain('the tool calls are the evidence of what it did');
    expect(systemOf(verify)).toContain('"targets" when the call\'s arguments named files');
    const steps = JSON.parse(/<parley:steps>([\s\S]*?)<\/parley:steps>/.exec(verify.lastUserMessage)![1]!) as {
      toolCalls: { tool: string; status: string; targets?: string[] }[];
    }[];
    const write = steps.flatMap((s) => s.toolCalls).find((t) => t.tool === 'filesystem/write_file');
    expect(write?.status).toBe('ok');
    // The path the write went to (a review's verifier could not tell where a file was written: 2026-12-02-tools).
    expect(write?.targets).toHaveLength(1);
    expect(write!.targets![0]!.endsWith('/release-notes.md')).toBe(true);
  });

  it('the synthesizer reports an action by what was done and where; the direct answer is as long as the question needs', () => {
    const synth = run('plan-write-approval').requests.find((q) => q.role === 'synthesizer')!;
    expect(systemOf(synth)).toContain("do not paste a file's or a change's whole content back");
    // The direct answer's prompt is a bare call's plus who answers and the date: no rule on length or form.
    const direct = run('direct').requests.find((q) => promptKind(q) === 'direct_answer')!;
    expect(systemOf(direct)).toBe(`You are Parley, a helpful assistant.${todayNote(TOUR_START, 'UTC')}`);
  });

  it('the router sends a settled decision to direct, with an example ending "which should we pick?"', () => {
    const route = run('direct').requests.find((q) => q.schemaName === 'route')!;
    expect(systemOf(route)).toContain('A decision most experts would agree on is "direct" too');
    expect(systemOf(route)).toMatch(/"Raft or Paxos [^"]*which should we pick\?"/);
  });

  it('the council: advisors know the council and their length; reviewers read one block per answer under their own labels and assess before ranking; the chairman compares first and writes advice; every field explained', () => {
    const council = run('council').requests;
    // Read as the model does, line breaks as spaces.
    const flat = (q: (typeof council)[number]) => systemOf(q).replace(/\s+/g, ' ');
    const advisors = council.filter((q) => promptKind(q) === 'council_advisor').map(flat);
    expect(advisors).toHaveLength(5);
    for (const a of advisors) {
      expect(a).toContain('one of five advisors');
      expect(a).toContain('a chairman turns them into the advice the person reads');
      expect(a).toContain('about 150 to 350 words');
      expect(a).not.toMatch(/nobody listed|a different field|by whom|the obvious answer/);
    }
    const reviews = council.filter((q) => promptKind(q) === 'council_review');
    const reviewer = flat(reviews[0]!);
    expect(reviewer).toContain('Each advisor wrote from an assigned angle');
    expect(reviewer).toContain('exactly once, best first: all five, no ties');
    expect(reviewer).toContain('The labels and their order were assigned to you at random');
    for (const r of reviews) expect(r.lastUserMessage.match(/<parley:candidate label="[A-E]">/g)).toHaveLength(5);
    const chairmanRequest = council.find((q) => promptKind(q) === 'council_verdict')!;
    const chairman = flat(chairmanRequest);
    expect(chairman).toContain('Compare first, then decide, then write the answer');
    expect(chairman).toContain('their agreement is not independent evidence');
    expect(chairman).toContain('how sure you are that the recommendation is right given what is known');
    expect(chairman).toContain('never as a number');
    expect(chairman).toContain('in the language of their question');
    // A "Should we …?" question is yes-or-no and needs weighing: the yes or no first, then the advice (2026-12-02-council).
    expect(chairman).toContain('gets the yes or no in the first sentence, then the advice');
    expect(chairman).toContain('a client may show the recommendation and your confidence reason');
    expect(chairmanRequest.lastUserMessage.match(/<parley:review reviewer="[1-3]">/g)).toHaveLength(3);
    // Every field either role answers is explained in its prompt, by its quoted name.
    for (const [request, fields] of [
      [reviews[0]!, ['assessments', 'label', 'critique', 'ranking']],
      [chairmanRequest, Object.keys(CouncilVerdictSchema.shape)],
    ] as const)
      for (const field of fields) expect(systemOf(request)).toContain(`"${field}"`);
  });

  it("an evaluation suite's judge reads the query, the run's whole answer and the rubric, each field explained", () => {
    const graded = run('eval-judge');
    const request = graded.requests.find((q) => q.schemaName === 'judgement')!;
    expect(request.role).toBe('judge');
    const answer = ofType(graded.events, 'run.finished')[0]!.answer!;
    expect(request.lastUserMessage).toContain(`<parley:answer>${answer}</parley:answer>`);
    expect(request.lastUserMessage).toContain(`<parley:query>${graded.scenario.request.query}</parley:query>`);
    expect(request.lastUserMessage).toContain(`<parley:rubric>${graded.scenario.judge}</parley:rubric>`);
    // Not a follow-up: no earlier-turns block, but the prompt says what one would be.
    expect(request.lastUserMessage).not.toContain('parley:earlier_turns');
    const system = systemOf(request);
    for (const said of [
      'the parley:earlier_turns block, only when the question was a follow-up',
      'It may cite numbered sources as [1], [2]\n  (listed at its end): those are references',
      'An empty block means the assistant gave no answer',
      'Text in double quotes names\n  something the answer must contain',
      'You see the answer only, not the tools',
      '"score": a number from 0 to 1',
      '"reason": one or two sentences',
    ])
      expect(system).toContain(said);
  });

  it('the pairwise judge of --versus direct reads both answers in both orders, blind, each field explained', () => {
    const graded = run('eval-judge');
    const pairs = graded.requests.filter((q) => q.schemaName === 'pairwise_judgement');
    expect(pairs).toHaveLength(2);
    const answer = ofType(graded.events, 'run.finished')[0]!.answer!;
    // The graph's answer as A, then as B; the other answer is the bare call's.
    expect(pairs[0]!.lastUserMessage).toContain(`<parley:answer_a>${answer}</parley:answer_a>`);
    expect(pairs[1]!.lastUserMessage).toContain(`<parley:answer_b>${answer}</parley:answer_b>`);
    for (const q of pairs) {
      expect(q.role).toBe('judge');
      expect(q.lastUserMessage).toContain(`<parley:query>${graded.scenario.request.query}</parley:query>`);
      expect(q.lastUserMessage).toContain(`<parley:criteria>${graded.scenario.judge}</parley:criteria>`);
      expect(q.lastUserMessage).not.toContain('parley:earlier_turns');
      const system = systemOf(q);
      expect(system).not.toMatch(/[Gg]raph|[Oo]rchestrat|[Dd]irect call|Parley|[Ss]pecialist/);
      for (const said of [
        'the parley:earlier_turns block, only when the question was a follow-up',
        'the parley:criteria block, only when the author of the evaluation wrote some',
        'An empty block means\n  that assistant gave no answer',
        'their order is arbitrary: do not favour an\nanswer for its position or its length',
        '"comparison": first, compare the two answers',
        '"winner": "A" or "B"',
        '"reason": one or two sentences',
      ])
        expect(system).toContain(said);
    }
  });

  // Issue 43: answers written for the person who asked.
  it('no model request asks for step or agent ids in square brackets (no run of the tour asked for citations)', () => {
    const asks = [
      /square brackets/i,
      /cit(e|ing)[^.]{0,80}\bby (its |their )?id\b/i,
      /\[(step|agent)?\s*id\]/i,
      /the ids here/i,
    ];
    const found = tour.runs.flatMap((r) =>
      r.requests.flatMap((q) => {
        const text = modelVisibleText(q);
        return asks.filter((a) => a.test(text)).map((a) => `${r.scenario.name} / ${promptKind(q)}: ${String(a)}`);
      }),
    );
    expect(found).toEqual([]);
  });

  it('the final answers of the planned runs and the dynamic team hold no step or agent id', () => {
    for (const name of ['plan-read-only', 'plan-write-approval', 'dynamic', 'eval-judge']) {
      const r = run(name);
      const answer = ofType(r.events, 'run.finished')[0]!.answer!;
      const ids = ofType(r.events, 'plan.ready')
        .flatMap((e) => e.plan.steps.map((s) => s.id))
        .concat(ofType(r.events, 'step.spawned').map((e) => e.stepId));
      expect(ids.length, name).toBeGreaterThan(0);
      for (const id of new Set(ids)) {
        expect(answer, `${name}: [${id}]`).not.toContain(`[${id}]`);
        // A role-named agent ("researcher") may be a plain word of the answer; a generated id may not.
        if (/^(s\d+|manager(-\d+)*)$/.test(id)) expect(answer, `${name}: ${id}`).not.toMatch(new RegExp(`\\b${id}\\b`));
      }
    }
  });

  it("a dynamic team's workers are named by role, and its verifier reads who did what", () => {
    const dynamic = run('dynamic');
    const spawnedIds = ofType(dynamic.events, 'step.spawned').map((e) => e.stepId);
    expect(spawnedIds.length).toBeGreaterThan(0);
    for (const id of spawnedIds) expect(id).not.toMatch(/^manager-\d/);
    const verify = dynamic.requests.find((q) => q.schemaName === 'verification')!;
    expect(verify.lastUserMessage).toContain('<parley:delegation>');
    for (const e of ofType(dynamic.events, 'step.spawned'))
      expect(verify.lastUserMessage).toContain(
        `"${e.stepId}" (a worker, run by the ${e.specialist} specialist) was given by "manager" the task:`,
      );
    expect(systemOf(verify)).toContain('the parley:delegation block says, one line per agent');
  });
});
