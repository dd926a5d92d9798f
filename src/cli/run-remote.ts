/**
 * `parley run` when the Parley service of this data dir runs (docs/service.md): the question goes to
 * the service's plain SSE stream (POST /stream) with the service token, so the run shares the service's
 * knowledge graph and execution memory instead of failing on its database lock. The events are the
 * engine's own GraphEvents, rendered exactly as an in-process run renders them. Ctrl-C cancels the run.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { GraphEvent } from '../graph/run/events.ts';
import { createTerminalRenderer } from './render-terminal.ts';
import type { ServiceConnection } from './service-client.ts';

export async function runRemote(service: ServiceConnection, question: string): Promise<number> {
  const auth = { Authorization: `Bearer ${service.token}` };
  const res = await fetch(new URL('/stream', service.record.url), {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: question }),
  });
  if (!res.ok || !res.body) {
    // A non-JSON error body: the status alone is reported below.
    const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
    process.stderr.write(
      `parley run: the Parley service refused the run (${res.status}): ${body?.error?.message ?? res.statusText}\n`,
    );
    return 1;
  }
  process.stderr.write(`(running in the Parley service ${service.record.url}, pid ${service.record.pid})\n`);
  const body = res.body;
  return showServiceRun(service, res.headers.get('x-parley-run-id'), 'parley run', () => Promise.resolve(body));
}

/**
 * Shows a run of the service live, rendered exactly as an in-process run renders it (`parley run`,
 * `parley fork`): Ctrl-C cancels the run. `openEvents` gives the run's SSE body, or the exit code
 * when it could not be opened (having said why). The run's exit code: 0 completed, 130 cancelled, else 1.
 */
export async function showServiceRun(
  service: ServiceConnection,
  runId: string | null,
  command: string,
  openEvents: () => Promise<ReadableStream<Uint8Array> | number>,
): Promise<number> {
  const auth = { Authorization: `Bearer ${service.token}` };
  const onSignal = () => {
    if (runId)
      void fetch(new URL(`/stream/${runId}/cancel`, service.record.url), { method: 'POST', headers: auth }).catch(
        () => undefined,
      );
  };
  process.once('SIGINT', onSignal);
  const render = createTerminalRenderer({
    progress: (line) => process.stderr.write(line + '\n'),
    answer: (text) => process.stdout.write(text),
  });
  let status: string | undefined;
  try {
    const body = await openEvents();
    if (typeof body === 'number') return body;
    const messages = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    for await (const message of messages) {
      const event = JSON.parse(message.data) as GraphEvent;
      render(event);
      if (event.type === 'run.finished') status = event.status;
    }
  } finally {
    process.off('SIGINT', onSignal);
  }
  if (status === undefined) {
    process.stderr.write(`${command}: the Parley service closed the stream before the run finished\n`);
    return 1;
  }
  return status === 'completed' ? 0 : status === 'cancelled' ? 130 : 1;
}
