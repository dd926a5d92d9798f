/**
 * The signed-in caller's pending approvals (GET /api/approvals: across runs, protocols and replicas).
 * Polled every POLL_MS while the page is visible, and at once when a run the page follows asks
 * (`refresh`): new requests appear without a reload.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../api/client.ts';
import type { ApprovalRequest } from '../api/types.ts';

const POLL_MS = 2000;

export interface Approvals {
  pending: ApprovalRequest[];
  error?: string;
  refresh(): void;
}

const sameRequests = (a: ApprovalRequest[], b: ApprovalRequest[]) =>
  a.length === b.length && a.every((r, i) => r.id === b[i]!.id);

export function useApprovals(enabled: boolean): Approvals {
  const [pending, setPending] = useState<ApprovalRequest[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const inFlight = useRef<Promise<void> | undefined>(undefined);

  const refresh = useCallback(() => {
    if (!enabled) return;
    inFlight.current ??= api<{ approvals: ApprovalRequest[] }>('/api/approvals')
      .then((body) => {
        // The same list again changes nothing (no re-render of the page every poll).
        setPending((known) => (sameRequests(known, body.approvals) ? known : body.approvals));
        setError(undefined);
      })
      .catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)))
      .finally(() => (inFlight.current = undefined));
  }, [enabled]);

  useEffect(() => {
    if (!enabled) return setPending([]);
    refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') refresh();
    }, POLL_MS);
    document.addEventListener('visibilitychange', refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', refresh);
    };
  }, [enabled, refresh]);

  return { pending, ...(error ? { error } : {}), refresh };
}
