/**
 * An editor as ACP tests need one: the recording client plus the client side of `fs` (unsaved buffers
 * shadow the files on disk; writes go to disk) and `terminal` (real child processes), each call recorded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { methods, RequestError, type CreateTerminalRequest } from '@agentclientprotocol/sdk';
import { recordingClient, type RecordingClient } from './acp-client.ts';

interface Terminal {
  child: ChildProcess;
  output: string;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  released: boolean;
}

export interface EditorClient extends RecordingClient {
  /** Unsaved editor buffers by absolute path: reads see these before the disk. */
  buffers: Map<string, string>;
  reads: string[];
  writes: { path: string; content: string }[];
  terminals: CreateTerminalRequest[];
  /** The method names of every fs/terminal request, in order. */
  calls: string[];
}

export function editorClient(): EditorClient {
  const rc = recordingClient() as EditorClient;
  rc.buffers = new Map();
  rc.reads = [];
  rc.writes = [];
  rc.terminals = [];
  rc.calls = [];
  const terminals = new Map<string, Terminal>();
  const terminal = (id: string): Terminal => {
    const t = terminals.get(id);
    if (!t || t.released) throw RequestError.invalidParams({ terminalId: id }, 'unknown terminal');
    return t;
  };
  rc.app
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      rc.calls.push('fs/read_text_file');
      rc.reads.push(params.path);
      const buffer = rc.buffers.get(params.path);
      if (buffer !== undefined) return { content: buffer };
      try {
        return { content: await readFile(params.path, 'utf8') };
      } catch {
        throw RequestError.resourceNotFound(params.path);
      }
    })
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      rc.calls.push('fs/write_text_file');
      rc.writes.push({ path: params.path, content: params.content });
      await writeFile(params.path, params.content, 'utf8');
      rc.buffers.delete(params.path);
      return {};
    })
    .onRequest(methods.client.terminal.create, ({ params }) => {
      rc.calls.push('terminal/create');
      rc.terminals.push(params);
      const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, stdio: 'pipe' });
      const id = `term-${terminals.size + 1}`;
      const t: Terminal = {
        child,
        output: '',
        released: false,
        exit: new Promise((resolve) =>
          child.once('close', (exitCode, signal) => resolve({ exitCode, signal: signal ?? null })),
        ),
      };
      child.stdout?.on('data', (b: Buffer) => (t.output += b.toString('utf8')));
      child.stderr?.on('data', (b: Buffer) => (t.output += b.toString('utf8')));
      terminals.set(id, t);
      return { terminalId: id };
    })
    .onRequest(methods.client.terminal.waitForExit, async ({ params }) => {
      rc.calls.push('terminal/wait_for_exit');
      return terminal(params.terminalId).exit;
    })
    .onRequest(methods.client.terminal.output, async ({ params }) => {
      rc.calls.push('terminal/output');
      const t = terminal(params.terminalId);
      const done = await Promise.race([t.exit, Promise.resolve(undefined)]);
      return { output: t.output, truncated: false, ...(done ? { exitStatus: done } : {}) };
    })
    .onRequest(methods.client.terminal.kill, ({ params }) => {
      rc.calls.push('terminal/kill');
      terminal(params.terminalId).child.kill();
      return {};
    })
    .onRequest(methods.client.terminal.release, ({ params }) => {
      rc.calls.push('terminal/release');
      const t = terminal(params.terminalId);
      t.child.kill();
      t.released = true;
      return {};
    });
  return rc;
}
