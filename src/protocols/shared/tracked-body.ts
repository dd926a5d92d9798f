/**
 * A response whose body reports when it ends, and the sweep built on it: for the HTTP transports that keep per-client state
 * (MCP sessions, ACP connections) and close it once the client is idle with no response streaming.
 */

/**
 * The same response; `opened` is called now if it has a body, and `closed` once when that body ends,
 * fails or is cancelled by the client going away. A response without a body calls neither.
 */
export function trackBody(response: Response, hooks: { opened(): void; closed(): void }): Response {
  if (!response.body) return response;
  hooks.opened();
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    hooks.closed();
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await reader.read().catch((err: unknown) => {
        finish();
        throw err;
      });
      if (chunk.done) {
        finish();
        controller.close();
      } else controller.enqueue(chunk.value);
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Per-client state an HTTP transport keeps: responses still streaming, and when the client was last seen. */
export interface ClientActivity {
  open: number;
  lastSeen: number;
}

/**
 * Every minute (or idleMs, if shorter), removes the clients idle for idleMs with nothing streaming
 * and hands each to `close`. Returns the timer (unref'd) for the transport to clear on shutdown.
 */
export function sweepIdleClients<T extends ClientActivity>(
  clients: Map<string, T>,
  idleMs: number,
  close: (id: string, client: T) => void,
): ReturnType<typeof setInterval> {
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, client] of clients) {
        if (client.open > 0 || now - client.lastSeen < idleMs) continue;
        clients.delete(id);
        close(id, client);
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();
  return sweep;
}
