/**
 * The session's project through the editor (ProjectClient over ACP): files via `fs/read_text_file` and
 * `fs/write_text_file` (so the agent sees unsaved buffers and the editor shows the change), commands in a
 * client terminal (`terminal/create`, shown on the tool call as `terminal` content, `wait_for_exit`,
 * `output`, `release`; `kill` when the run is cancelled). Only what the client advertised is used.
 */
import { RequestError, type AgentContext, type ClientCapabilities } from '@agentclientprotocol/sdk';
import type { CommandRun, ProjectClient } from '../../graph/contract.ts';
import type { AcpSession } from './session.ts';

/** Output kept per command: the client drops the start beyond this many bytes. */
export const OUTPUT_BYTE_LIMIT = 64 * 1024;

/** The editor as the session's project, when it offers both file methods; undefined: the folder on disk. */
export function acpProjectClient(
  client: AgentContext,
  capabilities: ClientCapabilities | undefined,
  session: Pick<AcpSession, 'id' | 'turn'>,
): ProjectClient | undefined {
  const fs = capabilities?.fs;
  if (!fs?.readTextFile || !fs.writeTextFile) return undefined;
  const sessionId = session.id;
  const project: ProjectClient = {
    via: 'client',
    async readTextFile(path, call) {
      try {
        const response = await client.request(
          'fs/read_text_file',
          { sessionId, path },
          { cancellationSignal: call.signal, stopWaitingOnCancel: true },
        );
        return response.content;
      } catch (err) {
        // Editors answer a missing file with "resource not found" (-32002); the tool reports "no such file".
        if (err instanceof RequestError && err.code === -32002) return undefined;
        throw err;
      }
    },
    async writeTextFile(path, content, call) {
      await client.request(
        'fs/write_text_file',
        { sessionId, path, content },
        { cancellationSignal: call.signal, stopWaitingOnCancel: true },
      );
    },
  };
  if (capabilities?.terminal) {
    project.runCommand = async (command, args, cwd, call): Promise<CommandRun> => {
      const terminal = await client.createTerminal({
        sessionId,
        command,
        args,
        cwd,
        outputByteLimit: OUTPUT_BYTE_LIMIT,
      });
      // Already exited or released: nothing left to kill.
      const kill = () => void terminal.kill().catch(() => undefined);
      call.signal.addEventListener('abort', kill, { once: true });
      try {
        await session.turn?.showTerminal(call, terminal.id);
        const exit = await terminal.waitForExit();
        const output = await terminal.currentOutput();
        return {
          output: output.output,
          exitCode: exit.exitCode ?? output.exitStatus?.exitCode ?? null,
          signal: exit.signal ?? output.exitStatus?.signal ?? null,
          truncated: output.truncated,
        };
      } finally {
        call.signal.removeEventListener('abort', kill);
        // Released, the terminal stays on the tool call: the client keeps showing its output.
        await terminal.release().catch(() => undefined);
      }
    };
  }
  return project;
}
