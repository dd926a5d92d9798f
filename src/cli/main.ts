/**
 * The `parley` command (bin/parley.js runs this file compiled, from dist/; `npm run dev` runs it through tsx).
 *   parley [serve]            start the HTTP server (default)
 *   parley run "<question>"   run one question through the graph, shown live
 *   parley fork RUN [--from CP] a new run from a checkpoint of RUN (docs/time-travel.md), shown live
 *   parley eval SUITE.yaml    run an evaluation suite and print its scorecard (docs/evals.md)
 *   parley acp                serve ACP (Agent Client Protocol) on stdio for editors: a bridge to the Parley service
 *   parley mcp                serve MCP on stdio for IDEs and assistants: a bridge to the Parley service
 *   parley status | stop      the Parley service of the data dir (docs/service.md)
 *   parley ingest             ingest every source into the knowledge graph and print the report
 *   parley doctor             probe the configured model endpoint(s) and say what works
 *   parley init [--force]     write editable copies of the shipped configuration into the Parley home
 *   --home <dir>              (any command) the Parley home for this command, as PARLEY_HOME
 * Logs and progress go to stderr; stdout carries only the answer (run) or the protocol (acp, mcp).
 * Each command imports what it needs when it runs, so `--version`, `help` and a configuration error
 * answer without loading the server, every protocol SDK and Kuzu (docs/performance.md, Startup).
 */
import { ConfigError, loadConfig, type Config } from '../config.ts';
import type { Parley } from '../server.ts';
import { VERSION } from '../version.ts';

const USAGE = `Parley ${VERSION}: one agent graph served over AG-UI, A2A, ACP, MCP, SSE and an OpenAI-compatible API.

Usage:
  parley [serve]              Start the HTTP server (PARLEY_HOST:PARLEY_PORT, default 127.0.0.1:8787)
  parley run "<question>"     Run one question through the graph, showing progress, the answer, usage and cost
  parley fork RUN [--from CP] Start a new run from a checkpoint of RUN (default: its last), shown like run
  parley eval SUITE.yaml      Run an evaluation suite; options --repeat K (pass^k), --out FILE (the JSON scorecard),
                              --compare ENV_A ENV_B (two configurations), --baseline FILE [--tolerance PCT],
                              --versus direct (the graph against one direct call of the same model, judged blind)
  parley acp                  Serve the Agent Client Protocol on stdio (Zed, JetBrains, Neovim, Emacs)
  parley mcp                  Serve MCP on stdio (IDEs and assistants)
  parley status [--json]      Whether the Parley service of the data dir runs: pid, port, uptime, clients
  parley stop                 Stop that service
  parley ingest               Ingest specialists, MCP servers and A2A peers into the knowledge graph
  parley doctor               Probe the model endpoint(s): what works, the structured strategy per role, prices, what to change
  parley init [--force]       Write editable copies of mcp_config.json, specialists/ and prices.json into the Parley home
  parley help | --help        Show this help
  parley --version            Print the version

Options:
  --home <dir>                The Parley home for this command (as PARLEY_HOME)

acp, mcp and run go through the one Parley service of the data dir (started in the background when
needed, docs/service.md), so every window and tool shares one knowledge graph and execution memory.
Configuration comes from the Parley home (PARLEY_HOME) and environment variables; see docs/configuration.md.
Editor and IDE setups (Zed, JetBrains, VS Code, Claude Desktop, Cursor): docs/editors.md.
With no model endpoint configured, answers come from the built-in scripted model.`;

const COMMANDS = ['serve', 'run', 'fork', 'eval', 'acp', 'mcp', 'ingest', 'doctor', 'init', 'status', 'stop'] as const;
type Command = (typeof COMMANDS)[number];

/** Runs one question through the engine: answer deltas to stdout, progress lines to stderr. Ctrl-C cancels. */
async function run(parley: Parley, question: string): Promise<number> {
  const [{ LOCAL_CALLER }, { createTerminalRenderer }] = await Promise.all([
    import('../graph/run/request.ts'),
    import('./render-terminal.ts'),
  ]);
  const handle = parley.engine.start({ query: question, protocol: 'cli', caller: LOCAL_CALLER });
  const onSignal = () => parley.engine.cancel(handle.id, 'interrupted (SIGINT)');
  process.once('SIGINT', onSignal);
  try {
    const render = createTerminalRenderer({
      progress: (line) => process.stderr.write(line + '\n'),
      answer: (text) => process.stdout.write(text),
    });
    for await (const event of handle.events()) render(event);
    const result = await handle.result;
    return result.status === 'completed' ? 0 : result.status === 'cancelled' ? 130 : 1;
  } finally {
    process.off('SIGINT', onSignal);
  }
}

async function ingest(parley: Parley): Promise<number> {
  const report = await parley.reingest();
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  const { ingestExitCode } = await import('./ingest-remote.ts');
  return ingestExitCode(report);
}

/** ACP or MCP on this process's stdin/stdout; ends when the client closes stdin. */
async function serveStdio(parley: Parley, protocol: 'acp' | 'mcp', config: Config): Promise<number> {
  const { engine, store, logger } = parley;
  const { LOCAL_CALLER } = await import('../graph/run/request.ts');
  if (protocol === 'acp') {
    const { serveAcpStdio, modelChoices } = await import('../protocols/acp/index.ts');
    const connection = serveAcpStdio({
      models: modelChoices(parley.config.model.roles),
      engine,
      logger,
      caller: LOCAL_CALLER,
      toolSettings: config.tools,
      threads: parley.threads,
      sessionStore: parley.acpSessions,
    });
    await connection.closed;
  } else {
    const { serveMcpStdio } = await import('../protocols/mcp/index.ts');
    const served = await serveMcpStdio({ engine, store, logger, version: VERSION });
    await served.closed;
  }
  return 0;
}

/** parley doctor: needs no knowledge graph or tools, only the model endpoints (the scripted model, with its profile, when none is configured). */
async function doctor(config: Config): Promise<number> {
  const [{ formatDoctor, runDoctor }, { loadPriceCatalog }, { pointAtScriptedModel }, { startScriptedModel }] =
    await Promise.all([
      import('../llm/doctor.ts'),
      import('../llm/prices.ts'),
      import('../llm/scripted-url.ts'),
      import('../scripted-model/index.ts'),
    ]);
  const prices = loadPriceCatalog(config.model.pricesFile);
  const scripted = config.model.scripted
    ? await startScriptedModel({ profile: config.model.scriptedProfile, logLimit: 100 })
    : undefined;
  try {
    const model = scripted ? pointAtScriptedModel(config.model, scripted.url) : config.model;
    const report = await runDoctor(model, { prices, embeddingsModel: config.model.embeddingsModel });
    process.stdout.write(formatDoctor(report) + '\n');
    return report.ok ? 0 : 1;
  } finally {
    await scripted?.close();
  }
}

async function once(
  config: Config,
  command: Exclude<Command, 'serve' | 'doctor' | 'init' | 'fork' | 'eval'>,
  question: string,
): Promise<number> {
  if (command === 'status' || command === 'stop') {
    const { statusCommand, stopCommand } = await import('./service-commands.ts');
    return command === 'stop'
      ? stopCommand(config.store.dataDir)
      : statusCommand(config.store.dataDir, question === '--json');
  }
  const { viaService } = await import('./via-service.ts');
  const code = await viaService(config, command, question);
  if (code !== undefined) return code;
  const { createParley } = await import('../server.ts');
  const parley = await createParley(config, {
    ingestAtStart: command !== 'ingest',
    // A one-shot command leaves the runs an earlier server left to the next `parley serve`.
    recoverRuns: command !== 'run' && command !== 'ingest',
  });
  try {
    if (command === 'run') return await run(parley, question);
    if (command === 'ingest') return await ingest(parley);
    return await serveStdio(parley, command, config);
  } finally {
    await parley.close();
  }
}

/** Takes `--home <dir>` (or `--home=<dir>`) out of argv into PARLEY_HOME: a flag wins over the environment. */
function takeHomeFlag(argv: string[]): string[] | undefined {
  const at = argv.findIndex((a) => a === '--home' || a.startsWith('--home='));
  if (at < 0) return argv;
  const value = argv[at]!.startsWith('--home=') ? argv[at]!.slice('--home='.length) : argv[at + 1];
  if (!value || value.startsWith('--')) return undefined;
  process.env.PARLEY_HOME = value;
  return [...argv.slice(0, at), ...argv.slice(at + (argv[at]!.includes('=') ? 1 : 2))];
}

async function main(args: string[]): Promise<number> {
  const argv = takeHomeFlag(args);
  if (!argv) {
    process.stderr.write('parley: --home needs a folder, e.g. parley --home ~/parley-work acp\n');
    return 2;
  }
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(VERSION + '\n');
    return 0;
  }
  if (!(COMMANDS as readonly string[]).includes(command)) {
    process.stderr.write(`parley: unknown command "${command}"\n\n${USAGE}\n`);
    return 2;
  }
  if (command === 'init') return (await import('./init.ts')).runInit(rest);
  if (command === 'eval') return (await import('./eval.ts')).evalCommand(rest);
  if (command === 'run' && rest.join(' ').trim() === '') {
    process.stderr.write(`parley run: give the question as an argument, e.g. parley run "What is Parley?"\n`);
    return 2;
  }

  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`parley: configuration error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  if (command === 'doctor') return doctor(config);
  if (command === 'fork') return (await import('./fork-remote.ts')).forkCommand(config, rest);
  if (command !== 'serve')
    return once(
      config,
      command as Exclude<Command, 'serve' | 'doctor' | 'init' | 'fork' | 'eval'>,
      rest.join(' ').trim(),
    );
  const { serveService } = await import('./serve-service.ts');
  await serveService(config, rest);
  return -1; // keep running until a signal
}

try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exitCode = code;
} catch (err) {
  // Settings checked while starting (the price catalog) are configuration errors too.
  const prefix = err instanceof ConfigError ? 'parley: configuration error: ' : 'parley: ';
  process.stderr.write(`${prefix}${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = err instanceof ConfigError ? 2 : 1;
}
