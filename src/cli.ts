/**
 * The `parley` command (bin/parley.js runs this file through tsx).
 *   parley [serve]            start the HTTP server (default)
 *   parley run "<question>"   answer one question and print it, with usage and cost
 * Logs go to stderr; stdout carries only the answer, so `parley run` can be piped.
 */
import { randomUUID } from 'node:crypto';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { ModelError } from './llm/errors.ts';
import type { ModelUsage } from './llm/types.ts';
import { createParley, serveParley, VERSION, type Parley } from './server.ts';

const USAGE = `Parley ${VERSION}: one agent graph served over AG-UI, A2A, ACP, MCP, SSE and an OpenAI-compatible API.

Usage:
  parley [serve]              Start the HTTP server (PARLEY_HOST:PARLEY_PORT, default 127.0.0.1:8787)
  parley run "<question>"     Answer one question and print the answer, usage and cost
  parley help | --help        Show this help
  parley --version            Print the version

Configuration is by environment variables; see docs/configuration.md.
With no model endpoint configured, answers come from the built-in scripted model.`;

function formatUsage(usage: ModelUsage): string {
  const cost = usage.costUsd === null ? 'cost unknown (model not in the price catalog)' : `cost $${usage.costUsd.toFixed(6)}`;
  return `usage: model ${usage.model}, ${usage.inputTokens} input tokens (${usage.cachedTokens} cached), ${usage.outputTokens} output tokens, ${cost}`;
}

/**
 * Answers one question and writes it to stdout as it streams. Until the engine is wired this is one
 * direct model call; with the engine, start a RunRequest ({ query, protocol: 'cli' }) here and print
 * its events (answer.delta to stdout, the rest as one line each to stderr).
 */
async function runQuestion(parley: Parley, question: string, signal: AbortSignal): Promise<void> {
  const runId = randomUUID();
  for await (const chunk of parley.model.stream({ role: 'default', runId, signal, messages: [{ role: 'user', content: question }] })) {
    if (chunk.type === 'delta') process.stdout.write(chunk.text);
    else {
      process.stdout.write('\n');
      process.stderr.write(formatUsage(chunk.usage) + '\n');
    }
  }
}

async function run(config: Config, question: string): Promise<number> {
  const parley = await createParley(config);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  try {
    await runQuestion(parley, question, controller.signal);
    return 0;
  } catch (err) {
    if (err instanceof ModelError && err.kind === 'aborted') {
      process.stderr.write('\ncancelled\n');
      return 130;
    }
    process.stderr.write(`parley run: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    await parley.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(VERSION + '\n');
    return 0;
  }
  if (command !== 'serve' && command !== 'run') {
    process.stderr.write(`parley: unknown command "${command}"\n\n${USAGE}\n`);
    return 2;
  }
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

  if (command === 'run') return run(config, rest.join(' ').trim());
  await serveParley(config);
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
