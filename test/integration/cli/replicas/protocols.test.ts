/**
 * Protocol clients on replica B following and answering a run that executes on replica A (issue 17,
 * docs/deployment.md "Replicas"), through each protocol's own client: AG-UI's HttpAgent resumes an
 * interrupt on B, A2A's SubscribeToTask on B follows a task whose run A executes, and an MCP client of B
 * sees and answers the approval A's run waits for.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EventType, HttpAgent, type BaseEvent } from '@ag-ui/client';
import { TaskState } from '@a2a-js/sdk';
import { postJson } from '../../../support/protocols/sse-read.ts';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { stateOf } from '../../../support/protocols/a2a-helpers.ts';
import { a2aTaskWaitingOn, replicasMissing, startRun, subscribeOn, useReplicas } from '../../../support/replicas.ts';
import type { ServeProcess } from '../../../support/serve-process.ts';
import { roundRobin } from '../../../support/round-robin.ts';

interface PendingOut {
  requestId: string;
  toolCalls: { toolCallId: string }[];
  answerWith: { tool: string; arguments: Record<string, unknown> };
}

const missing = replicasMissing();
if (missing) console.log(`protocols.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 120_000 });

// Two replicas for the file: no test kills or restarts one, and each follows only its own run.
const { sharedReplicas, workspace, writeQuery } = useReplicas('parley-replica-protocols', {}, { shared: 2 });

/** The file's replicas A and B, and what each one logged since the test began. */
function pair() {
  const [a, b] = sharedReplicas() as [ServeProcess, ServeProcess];
  const from = [a.log().length, b.log().length];
  return { a, b, logOf: (r: ServeProcess) => r.log().slice(from[r === a ? 0 : 1]) };
}

describe.skipIf(missing !== undefined)('protocol clients across replicas', () => {
  it('AG-UI: an interrupt shown by A is resumed through B; A goes on and B streams the rest', async () => {
    const { a, b, logOf } = pair();
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${a.url}/ag-ui`, threadId });
    agent.addMessage({ id: randomUUID(), role: 'user', content: writeQuery('agui.txt', 'through B') });
    const firstRunId = randomUUID();
    const before: BaseEvent[] = [];
    await agent.runAgent(
      { runId: firstRunId, forwardedProps: { parley: { interrupts: true, mode: 'orchestrate' } } },
      { onEvent: ({ event }) => void before.push(event) },
    );
    expect(before.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt' } });
    const interrupt = agent.pendingInterrupts[0]!;

    const onB = new HttpAgent({ url: `${b.url}/ag-ui`, threadId, initialMessages: agent.messages });
    const after: BaseEvent[] = [];
    await onB.runAgent(
      {
        runId: randomUUID(),
        resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'accept' } }],
      },
      { onEvent: ({ event }) => void after.push(event) },
    );
    expect(after[0]).toMatchObject({
      type: EventType.RUN_STARTED,
      metadata: { parleyRunId: firstRunId, resumed: true },
    });
    expect(after.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    // Nothing the first stream showed is shown again.
    expect(after.some((e) => e.type === EventType.CUSTOM && 'name' in e && e.name === 'approval_required')).toBe(false);
    expect(readFileSync(join(workspace, 'agui.txt'), 'utf8')).toBe('through B');
    // The run executed on A: its log says so, B only followed it.
    expect(logOf(a)).not.toContain('taking over');
    expect(logOf(b)).not.toContain('taking over');
  });

  it('A2A: SubscribeToTask on B follows a task whose run A executes, to its end', async () => {
    const { a, b } = pair();
    const task = await a2aTaskWaitingOn(a.url, writeQuery('sub.txt', 'followed on B'));
    const followed = await subscribeOn(b.url, task.taskId);
    await vi.waitFor(() => expect(followed.events.length).toBeGreaterThan(0));
    expect(stateOf(followed.events[0]!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answer = { request_id: task.requestId, decisions: task.decisions };
    expect((await postJson(`${a.url}/api/approve`, answer)).status).toBe(200);
    await followed.done;
    expect(stateOf(followed.events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(
      followed.events.some(
        (e) => e.payload?.$case === 'artifactUpdate' && e.payload.value.artifact?.artifactId === 'answer',
      ),
    ).toBe(true);
    expect(readFileSync(join(workspace, 'sub.txt'), 'utf8')).toBe('followed on B');
  });

  it('MCP: a client of B sees the approval a run on A waits for (get_run) and answers it (approve); A goes on', async () => {
    const { a, b } = pair();
    const run = await startRun(
      a.url,
      { query: writeQuery('mcp.txt', 'answered over MCP'), mode: 'orchestrate' },
      'approval.requested',
    );
    const client = new Client({ name: 'replica-b', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`)));
    try {
      const got = await client.callTool({ name: 'get_run', arguments: { run_id: run.runId, waitMs: 5_000 } });
      const waiting = got.structuredContent as { status: string; pending: PendingOut[] };
      expect(waiting.status).toBe('input_required');
      const [pending] = waiting.pending;
      const answered = await client.callTool({
        name: 'approve',
        arguments: { request_id: pending!.requestId, decisions: { [pending!.toolCalls[0]!.toolCallId]: 'accept' } },
      });
      expect(answered.isError).toBeFalsy();
      await run.done;
      expect(run.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
      expect(readFileSync(join(workspace, 'mcp.txt'), 'utf8')).toBe('answered over MCP');
    } finally {
      await client.close();
    }
  });

  it('MCP: one session behind a round-robin balancer is served by every replica in turn', async () => {
    const { a, b, logOf } = pair();
    const proxy = await roundRobin([a.url, b.url]);
    const client = new Client({ name: 'balanced', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`));
    try {
      await client.connect(transport);
      const sessionId = transport.sessionId;
      for (let i = 0; i < 4; i++) expect((await client.listTools()).tools.map((t) => t.name)).toContain('ask');
      const asked = await client.callTool({ name: 'ask', arguments: { query: 'What is a fjord?', mode: 'direct' } });
      expect(asked.isError).toBeFalsy();
      expect(transport.sessionId).toBe(sessionId);
      // The session was opened on one replica and served by the other too.
      const revived = [a, b].filter((r) => logOf(r).includes('mcp: serving a session opened elsewhere'));
      expect(revived).toHaveLength(1);
    } finally {
      await client.close();
      proxy.server.close();
    }
  });
});
