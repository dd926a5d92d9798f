/**
 * A comment line on an SSE stream that has been idle for `everyMs`: proxies drop silent
 * connections, and every SSE client (EventSource, the SDKs' parsers) skips comments. The stream's
 * own writes call `wrote()`, so a busy stream carries no heartbeats.
 */
export interface Heartbeat {
  wrote(): void;
  stop(): void;
}

export function startHeartbeat(
  write: (text: string) => Promise<unknown>,
  everyMs: number,
  comment = 'heartbeat',
): Heartbeat {
  let lastWrite = Date.now();
  const timer = setInterval(
    () => {
      if (Date.now() - lastWrite < everyMs) return;
      lastWrite = Date.now();
      // A write to a stream the client just left fails; the stream's own loop ends it.
      write(`: ${comment}\n\n`).catch(() => undefined);
    },
    Math.max(10, Math.floor(everyMs / 2)),
  );
  return {
    wrote: () => {
      lastWrite = Date.now();
    },
    stop: () => clearInterval(timer),
  };
}
