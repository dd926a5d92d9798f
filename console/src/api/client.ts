/**
 * Every request the console makes: same origin, the signed-in key as a bearer token, JSON errors in
 * Parley's one shape ({ error: { code, message } }) turned into ApiError. The key lives in
 * sessionStorage: it survives a reload of the tab and goes when the tab closes.
 */
const KEY_ITEM = 'parley.apiKey';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const session = {
  key: (): string | undefined => sessionStorage.getItem(KEY_ITEM) ?? undefined,
  signIn: (key: string) => sessionStorage.setItem(KEY_ITEM, key),
  signOut: () => sessionStorage.removeItem(KEY_ITEM),
};

/** The headers every API call carries. */
export function authHeaders(): Record<string, string> {
  const key = session.key();
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** Listeners told when the server refuses the key (401): the shell shows the sign-in form again. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export async function errorOf(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } | string };
    if (typeof body.error === 'object') {
      code = body.error.code ?? code;
      message = body.error.message ?? message;
    } else if (typeof body.error === 'string') message = body.error;
  } catch {
    // not JSON: keep the status line
  }
  if (res.status === 401) for (const listener of unauthorizedListeners) listener();
  return new ApiError(res.status, code, message);
}

/** A JSON request to Parley's API; throws ApiError with the server's message when it is refused. */
export async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}) {
  const res = await fetch(path, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      accept: 'application/json',
      ...authHeaders(),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

/** Whether the server wants a key: true when a request without one is refused. */
export async function authRequired(): Promise<boolean> {
  const res = await fetch('/api/runs?limit=1', { headers: { accept: 'application/json' } });
  return res.status === 401;
}
