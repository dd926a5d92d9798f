/** `npm run model:relay -- --dir DIR [--port P] [--timeout SECONDS] [--model NAME]`: the relay model standalone. */
import { parseArgs } from 'node:util';
import { ANSWER_FORMAT, DEFAULT_RELAY_TIMEOUT_MS, startRelayModel } from './server.ts';

const USAGE =
  'usage: npm run model:relay -- --dir DIR [--port 8789] [--timeout 1800] [--model relay] [--host 127.0.0.1]';

function fail(message: string): never {
  console.error(`relay-model: ${message}\n${USAGE}`);
  process.exit(2);
}

function number(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) fail(`--${name} ${JSON.stringify(raw)} is invalid: a non-negative integer`);
  return n;
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      dir: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      timeout: { type: 'string' },
      model: { type: 'string' },
      help: { type: 'boolean' },
    },
  }));
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.dir) fail('--dir is required: the folder requests are written to and answers read from');
const timeoutSeconds = number('timeout', values.timeout, DEFAULT_RELAY_TIMEOUT_MS / 1000);
if (timeoutSeconds === 0) fail('--timeout must be at least 1 second');

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
const relay = await startRelayModel({
  dir: values.dir,
  port: number('port', values.port, 8789),
  host: values.host || '127.0.0.1',
  timeoutMs: timeoutSeconds * 1000,
  model: values.model || 'relay',
  log,
});
log(
  `Relay model listening: point an OpenAI client at ${relay.url}/v1 (any API key, model "${values.model || 'relay'}").`,
);
log(`Requests are written to ${relay.dir}/<id>.request.json and .request.md; answer each with <id>.answer.json.`);
log(`A request waits ${timeoutSeconds} s for its answer, then gets a 504; ${ANSWER_FORMAT}.`);

const stop = () => {
  void relay.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
