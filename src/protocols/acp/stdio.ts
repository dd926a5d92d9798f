/**
 * `parley acp`: the ACP agent over stdio, newline-delimited JSON-RPC (the SDK's ndJsonStream).
 * stdout carries only protocol messages; Parley's logs go to stderr (src/log.ts).
 */
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type AgentConnection } from '@agentclientprotocol/sdk';
import { buildAcpAgent, type AcpDeps } from './agent.ts';

export interface AcpStdio {
  input?: Readable;
  output?: Writable;
}

/** Serves one ACP client on stdin/stdout; `closed` resolves when the client closes stdin. */
export function serveAcpStdio(deps: AcpDeps, io: AcpStdio = {}): AgentConnection {
  const input = io.input ?? process.stdin;
  const output = io.output ?? process.stdout;
  const stream = ndJsonStream(
    Writable.toWeb(output) as WritableStream<Uint8Array>,
    Readable.toWeb(input) as ReadableStream<Uint8Array>,
  );
  // The editor launched this process: its stdio MCP servers and its folder are on this machine.
  const { app, closeSessions } = buildAcpAgent({ local: true, ...deps });
  const connection = app.connect(stream);
  // The editor went away: stop the MCP servers its sessions started.
  void connection.closed.then(closeSessions, closeSessions);
  return connection;
}
