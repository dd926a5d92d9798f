/**
 * A response whose body reports when it ends: for the HTTP transports that keep per-client state
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
