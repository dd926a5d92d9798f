/**
 * The project a session works on, as its tools reach it: the editor's own file and terminal methods
 * (an ACP client that advertises `fs` / `terminal`, implemented by the adapter) or the folder on disk
 * (local-client.ts). Paths are absolute; the tool host has already resolved them against the project root.
 */
export interface CommandRun {
  /** What the command printed (stdout and stderr as the terminal shows them). */
  output: string;
  exitCode: number | null;
  signal?: string | null;
  /** The client dropped the start of the output to stay within its byte limit. */
  truncated: boolean;
}

/** The call a project operation belongs to: the engine's tool call id (the adapter shows terminals on it). */
export interface ProjectCall {
  toolCallId: string;
  tool: string;
  signal: AbortSignal;
}

export interface ProjectClient {
  /** Where the editor's view of the project comes from, for the log and the tools' descriptions. */
  readonly via: 'client' | 'disk';
  /** The file's text (the editor's unsaved buffer when it has one); undefined when there is no such file. */
  readTextFile(path: string, call: ProjectCall): Promise<string | undefined>;
  writeTextFile(path: string, content: string, call: ProjectCall): Promise<void>;
  /** Runs a command in `cwd` to its end; absent when the client has no terminal. */
  runCommand?(command: string, args: string[], cwd: string, call: ProjectCall): Promise<CommandRun>;
}
