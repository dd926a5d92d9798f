import { describe, expect, it } from 'vitest';
import { createTestParley } from '../../support/engine.ts';
import { useNotesParley } from '../../support/use-notes-parley.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';
import type { ToolDecision } from '../../../src/hitl/types.ts';
import { ofType } from '../../support/run-events.ts';

// A real MCP server (Streamable HTTP) behind the real McpToolHost; write_note is destructive.
const notes = useNotesParley('skills:approval-test');
const p = notes.parley;

/** Runs the query; when approval.requested arrives, records what the tool server had seen, then decides. */
async function runWithDecision(query: string, decide: (toolCallId: string) => ToolDecision, feedback?: string) {
  const handle = p.engine.start({ query, mode: 'orchestrate', protocol: 'test' });
  const events: GraphEvent[] = [];
  let writesWhenAsked = -1;
  for await (const e of handle.events()) {
    events.push(e);
    if (e.type === 'approval.requested' && e.request.kind === 'tool') {
      writesWhenAsked = notes.mcp.state.writes.length;
      const call = e.request.toolCalls[0]!;
      const answer = await p.approvals.resolve(
        e.request.id,
        { kind: 'tool', decisions: { [call.toolCallId]: decide(call.toolCallId) }, feedback },
        'tester',
      );
      expect(answer.ok).toBe(true);
    }
  }
  return { result: await handle.result, events, writesWhenAsked };
}

describe('approval inside a step (real MCP server)', () => {
  it('announces approval.requested before the tool runs; accepting through the broker continues the run', async () => {
    const before = notes.mcp.state.writes.length;
    const { result, events, writesWhenAsked } = await runWithDecision(
      'Save the meeting notes [[tool:notes/write_note {"path":"standup.md","content":"ship it"}]]',
      () => ({ type: 'accept' }),
    );
    expect(result.status).toBe('completed');
    expect(writesWhenAsked).toBe(before);
    expect(notes.mcp.state.writes.slice(before)).toEqual([{ path: 'standup.md', content: 'ship it' }]);

    const types = events.map((e) => e.type).filter((t) => t.startsWith('tool.') || t.startsWith('approval.'));
    expect(types).toEqual(['tool.started', 'approval.requested', 'approval.resolved', 'tool.finished']);
    const requested = ofType(events, 'approval.requested')[0]!.request;
    expect(requested).toMatchObject({ kind: 'tool', runId: result.runId, stepId: 's1' });
    if (requested.kind === 'tool')
      expect(requested.toolCalls[0]).toMatchObject({
        tool: 'notes/write_note',
        reason: 'annotations: destructiveHint',
        args: { path: 'standup.md', content: 'ship it' },
      });
    expect(ofType(events, 'approval.resolved')[0]!.outcome).toMatchObject({ resolvedBy: 'human', actor: 'tester' });
    expect(ofType(events, 'tool.finished')[0]).toMatchObject({ status: 'ok', tool: 'notes/write_note' });
    const step = ofType(events, 'step.finished')[0]!;
    expect(step.lineage!.toolCalls).toEqual([
      {
        toolCallId: requested.kind === 'tool' ? requested.toolCalls[0]!.toolCallId : '',
        tool: 'notes/write_note',
        status: 'ok',
        // The file the call named: the verifier's evidence of where it wrote.
        targets: ['standup.md'],
      },
    ]);
    expect(step.output).toContain('wrote 7 chars to standup.md');
    expect(result.usage.toolCalls).toBe(1);
    // The broker audited the request and its decision in the knowledge graph.
    const audit = await p.store.listApprovals(result.runId);
    expect(audit[0]).toMatchObject({ id: requested.id, resolvedBy: 'human', actor: 'tester' });
  });

  it('a denial reaches the model as the tool result, with the feedback, and the tool never runs', async () => {
    const before = notes.mcp.state.writes.length;
    const { result, events } = await runWithDecision(
      'Save the retro notes [[tool:notes/write_note {"path":"retro.md","content":"x"}]]',
      () => ({ type: 'deny' }),
      'not in the shared folder',
    );
    expect(notes.mcp.state.writes.length).toBe(before);
    expect(ofType(events, 'tool.finished')[0]).toMatchObject({ status: 'denied' });
    const step = ofType(events, 'step.finished')[0]!;
    expect(step.output).toContain('A human reviewer denied this tool call. Feedback: not in the shared folder');
    expect(result.status).toBe('completed');
  });

  it('an edit calls the tool with the edited arguments', async () => {
    const before = notes.mcp.state.writes.length;
    await runWithDecision('Save the plan notes [[tool:notes/write_note {"path":"plan.md","content":"draft"}]]', () => ({
      type: 'edit',
      args: { path: 'plan.md', content: 'final' },
    }));
    expect(notes.mcp.state.writes.slice(before)).toEqual([{ path: 'plan.md', content: 'final' }]);
  });

  it('a read-only tool needs no approval', async () => {
    const { result, events } = await p.run({
      query: 'Read the meeting notes [[tool:notes/read_note {"path":"standup.md"}]]',
      mode: 'orchestrate',
    });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'approval.requested')).toHaveLength(0);
    expect(ofType(events, 'tool.finished')[0]).toMatchObject({ status: 'ok', result: 'note at standup.md: hello' });
  });
});

describe('approval timeouts and cancellation', () => {
  it('an unanswered approval times out to the default (deny) and the run goes on', async () => {
    const quick = await createTestParley({
      roster: false,
      mcpServers: { notes: { url: notes.mcp.mcpUrl } },
      specialists: [{ ...(await p.store.getSpecialist('notes-keeper'))! }],
      config: { approvals: { timeoutMs: 150 } },
    });
    try {
      const before = notes.mcp.state.writes.length;
      const { result, events } = await quick.run({
        query: 'Save the notes [[tool:notes/write_note {"path":"t.md","content":"x"}]]',
        mode: 'orchestrate',
      });
      expect(result.status).toBe('completed');
      expect(ofType(events, 'approval.resolved')[0]!.outcome).toMatchObject({ resolvedBy: 'timeout' });
      const finished = ofType(events, 'tool.finished')[0]!;
      expect(finished.status).toBe('denied');
      expect(finished.error).toMatch(/^The tool call was not approved \(timeout\)\./);
      expect(notes.mcp.state.writes.length).toBe(before);
    } finally {
      await quick.close();
    }
  });

  it('cancelling a run that waits on an approval settles the approval and ends the run cancelled', async () => {
    const handle = p.engine.start({
      query: 'Save the notes [[tool:notes/write_note {"path":"c.md","content":"x"}]]',
      mode: 'orchestrate',
      protocol: 'test',
    });
    const events: GraphEvent[] = [];
    for await (const e of handle.events()) {
      events.push(e);
      if (e.type === 'approval.requested') expect(p.engine.cancel(handle.id, 'changed my mind')).toBe(true);
    }
    expect(await handle.result).toMatchObject({ status: 'cancelled', error: 'cancelled: changed my mind' });
    const requested = ofType(events, 'approval.requested')[0]!.request;
    expect(p.approvals.listPending(handle.id)).toEqual([]);
    expect((await p.approvals.resolve(requested.id, { kind: 'tool', decisions: {} }, 'late')).ok).toBe(false);
  });
});
