/**
 * AG-UI interrupts across a restart of a real `parley serve` process on the same data dir
 * (docs/protocols/agui.md "Interrupts across a restart"), through @ag-ui/client's HttpAgent, whose own
 * verifier rejects any out-of-order stream: a run interrupted on a tool approval is stopped with kill -9
 * (and SIGTERM), the server starts again, and the client resumes the interrupt with the standard
 * `resume` entry. The run finishes, the file is written, and the resumed stream is a valid AG-UI
 * sequence that repeats nothing the first stream showed.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { EventType, HttpAgent, type AgentSubscriber, type BaseEvent } from '@ag-ui/client';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { useServeProcesses } from '../../support/serve-process.ts';
import { writeFileQuery } from '../../support/server.ts';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
vi.setConfig({ testTimeout: 120_000 });

const { serve, tempDataDir } = useServeProcesses('parley-restart-agui');

function recorder(): { events: BaseEvent[]; subscriber: AgentSubscriber } {
  const events: BaseEvent[] = [];
  return { events, subscriber: { onEvent: ({ event }) => void events.push(event) } };
}

const stepStarts = (events: BaseEvent[]) =>
  events.filter((e) => e.type === EventType.STEP_STARTED).map((e) => (e as BaseEvent & { stepName: string }).stepName);

describe('an AG-UI interrupt survives a restart', () => {
  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`${signal === 'SIGKILL' ? 'kill -9' : 'SIGTERM'}: the resume continues the run, the file is written, the stream is valid`, async () => {
      const dataDir = tempDataDir();
      const file = `agui-${signal}.txt`;
      const first = await serve(dataDir);
      const threadId = randomUUID();
      const query = writeFileQuery(dataDir, file, `written after ${signal}`);
      const agent = new HttpAgent({ url: `${first.url}/ag-ui`, threadId });
      agent.addMessage({ id: randomUUID(), role: 'user', content: query });
      const firstRunId = randomUUID();
      const before = recorder();
      await agent.runAgent(
        { runId: firstRunId, forwardedProps: { parley: { interrupts: true, mode: 'orchestrate' } } },
        before.subscriber,
      );
      expect(before.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt' } });
      expect(agent.pendingInterrupts).toHaveLength(1);
      const interrupt = agent.pendingInterrupts[0]!;

      first.child.kill(signal);
      const stopped = await first.exit;
      if (signal === 'SIGTERM') expect(stopped.code).toBe(0);
      else expect(stopped.signal).toBe('SIGKILL');
      expect(existsSync(join(dataDir, 'workspace', file))).toBe(false);

      // The page is reloaded against the restarted server: same thread, same messages, the interrupt it was shown.
      const second = await serve(dataDir);
      const reloaded = new HttpAgent({ url: `${second.url}/ag-ui`, threadId, initialMessages: agent.messages });
      const after = recorder();
      const resumedRunId = randomUUID();
      await reloaded.runAgent(
        {
          runId: resumedRunId,
          resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'accept' } }],
        },
        after.subscriber,
      );
      expect(after.events[0]).toMatchObject({
        type: EventType.RUN_STARTED,
        runId: resumedRunId,
        metadata: { parleyRunId: firstRunId, resumed: true },
      });
      expect(after.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
      // The step ran again after the restart and its model named the call anew; the interrupt's decision
      // carried over to it (docs/durability.md), and the client sees that call start and finish.
      const calls = after.events.filter((e) => e.type === EventType.TOOL_CALL_START) as (BaseEvent & {
        toolCallId: string;
        toolCallName: string;
      })[];
      expect(calls.map((c) => c.toolCallName)).toEqual(['filesystem/write_file']);
      expect(after.events).toContainEqual(
        expect.objectContaining({ type: EventType.TOOL_CALL_RESULT, toolCallId: calls[0]!.toolCallId }),
      );
      expect(readFileSync(join(dataDir, 'workspace', file), 'utf8')).toBe(`written after ${signal}`);
      // Nothing the first stream showed is shown again: no second approval request.
      expect(
        after.events.some((e) => e.type === EventType.CUSTOM && 'name' in e && e.name === 'approval_required'),
      ).toBe(false);
      // Steps are a valid sequence (HttpAgent verifies it): the nodes open when the process stopped are not
      // started a second time while open; those the resumed run goes through again start and finish anew.
      const started = stepStarts(after.events);
      expect(started.slice(-2)).toEqual(['verifier', 'synthesizer']);
      expect(
        after.events
          .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
          .map((e) => (e as BaseEvent & { delta: string }).delta)
          .join(''),
      ).not.toBe('');
    });
  }
});
