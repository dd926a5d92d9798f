/**
 * Whether a run was admitted: the usage guard's decision (the caller's rate limit and window
 * budgets), told to adapters through RunHandle.admission so that an HTTP adapter can answer a
 * refusal with 429 + Retry-After before it commits to a stream. Settled once: by the guard, or
 * as admitted when the run ends before the guard decided (an invalid request, a cancel): that
 * run's stream carries its own ending.
 */
export type Admission =
  | { admitted: true }
  /** Refused before any model call; `error` says by which limit, `retryAfterMs` when it frees up. */
  | { admitted: false; error: string; retryAfterMs: number };

export interface AdmissionGate {
  readonly promise: Promise<Admission>;
  /** The first call decides; later calls change nothing. */
  readonly settle: (admission: Admission) => void;
}

export function admissionGate(): AdmissionGate {
  let settle!: (admission: Admission) => void;
  const promise = new Promise<Admission>((resolve) => (settle = resolve));
  return { promise, settle };
}

export const ADMITTED: Admission = Object.freeze({ admitted: true });
