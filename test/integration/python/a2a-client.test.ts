/**
 * The Python A2A client (`a2a-sdk`, test/python/a2a_client.py) against Parley on each binding Parley serves:
 * JSON-RPC, HTTP+JSON and gRPC (docs/protocols/a2a.md). On each it sends (blocking), streams a run to an
 * approval, follows it with SubscribeToTask while it resumes it with a decision message, and cancels a
 * second approval-waiting task. The real engine with the scripted model behind the real HTTP app and
 * gRPC server (test/support/protocols/a2a-server-rig.ts); the fixture MCP server's write tool needs the
 * approval, and the note it writes proves the decision reached the tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTE_QUERY } from '../../support/protocols/a2a-helpers.ts';
import { startA2AServerRig, type A2AServerRig } from '../../support/protocols/a2a-server-rig.ts';
import {
  pythonJson,
  pythonMissing,
  pythonVenv,
  runPython,
  PYTHON_VENV_TIMEOUT_MS,
  type PythonVenv,
} from '../../support/python.ts';

interface Seen {
  binding: string;
  send: { state: string; answer: string; artifacts: string[] };
  stream: {
    first: string;
    states: string[];
    approval: { pending: { request_id: string; toolCalls: { toolCallId: string; tool: string }[] }[] };
  };
  resume: { states: string[]; subscribed: string[]; subscribedFirst: string; final: string; answer: string };
  cancel: { before: string; returned: string; after: string };
}

const missing = pythonMissing();
if (missing) console.warn(missing);

describe.skipIf(missing)('the Python a2a-sdk client against Parley', () => {
  let venv: PythonVenv;
  let rig: A2AServerRig;
  beforeAll(async () => {
    venv = await pythonVenv();
    rig = await startA2AServerRig();
  }, PYTHON_VENV_TIMEOUT_MS);
  afterAll(async () => {
    await rig?.close();
  });

  it.each(['JSONRPC', 'HTTP+JSON', 'GRPC'])(
    '%s: sends, streams to an approval, resumes it with a decision, subscribes and cancels',
    async (binding) => {
      const writesBefore = rig.fixture.state.writes.length;
      const seen = pythonJson<Seen>(
        await runPython(venv, 'a2a_client.py', [rig.server.url, binding, NOTE_QUERY], { timeoutMs: 90_000 }),
      );
      expect(seen.binding).toBe(binding);
      // send: a blocking SendMessage answers with the finished task and its answer artifact.
      expect(seen.send).toMatchObject({ state: 'TASK_STATE_COMPLETED', artifacts: expect.arrayContaining(['answer']) });
      expect(seen.send.answer).toMatch(/tide/i);
      // stream: the task first, then working, then input-required with the approval's data part.
      expect(seen.stream.first).toBe('task');
      expect(seen.stream.states).toContain('TASK_STATE_WORKING');
      expect(seen.stream.states.at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');
      const [pending] = seen.stream.approval.pending;
      expect(pending!.toolCalls).toEqual([expect.objectContaining({ tool: 'fx/write_note' })]);
      // resume: the decision message ends the task completed; the subscription saw it from input-required on.
      expect(seen.resume.states.at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(seen.resume.subscribedFirst).toBe('task');
      expect(seen.resume.subscribed[0]).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(seen.resume.subscribed.at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(seen.resume.final).toBe('TASK_STATE_COMPLETED');
      expect(seen.resume.answer).not.toBe('');
      // The tool ran once, after the decision; the cancelled task's call never did.
      expect(rig.fixture.state.writes.slice(writesBefore)).toEqual([{ path: 'a2a.txt', content: 'hello' }]);
      // cancel: the waiting task is canceled and stays so.
      expect(seen.cancel).toEqual({
        before: 'TASK_STATE_INPUT_REQUIRED',
        returned: 'TASK_STATE_CANCELED',
        after: 'TASK_STATE_CANCELED',
      });
    },
    120_000,
  );
});
