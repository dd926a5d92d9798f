/** Loads JSON from the API when the path changes; `reload` fetches it again. */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client.ts';

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload(): void;
}

export function useLoad<T>(path: string | undefined): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) return setState({ loading: false });
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    api<T>(path, { signal: abort.signal }).then(
      (data) => setState({ data, loading: false }),
      (err: unknown) => {
        if (!abort.signal.aborted)
          setState({ error: err instanceof Error ? err.message : String(err), loading: false });
      },
    );
    return () => abort.abort();
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
