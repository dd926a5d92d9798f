/**
 * Follows one run's events (GET /api/runs/:id/events: the retained log, then live) into a RunView.
 * Events are folded as they arrive and React is told once per animation frame, so a burst of
 * thousands of deltas costs one render per frame, not one per event.
 */
import { useEffect, useState } from 'react';
import { api, ApiError } from '../api/client.ts';
import { followSse } from '../api/sse.ts';
import type { GraphEvent, RunRecord } from '../api/types.ts';
import { applyEvent, emptyRun, viewFromRecord, type RunView } from './run-view.ts';

export interface RunFeed {
  view: RunView;
  /** Why the run cannot be shown (unknown, or another caller's: the server answers both alike). */
  error?: string;
  /** Set when the event log was gone and the view was drawn from the run's record. */
  replayedFrom?: 'record';
}

/**
 * `onEvent` sees each event as it is applied; `onRecord` the run's record when the event log was gone and
 * the view was drawn from it (a finished run past retention: its query, answer and a fork's parent are there).
 */
export function useRunEvents(
  runId: string | undefined,
  onEvent?: (event: GraphEvent) => void,
  onRecord?: (record: RunRecord) => void,
): RunFeed | undefined {
  const [feed, setFeed] = useState<RunFeed | undefined>(undefined);
  useEffect(() => {
    if (!runId) {
      setFeed(undefined);
      return;
    }
    const view = emptyRun(runId);
    const abort = new AbortController();
    let frame = 0;
    const publish = () => {
      frame = 0;
      setFeed({ view: { ...view } });
    };
    setFeed({ view: { ...view } });
    followSse(
      `/api/runs/${encodeURIComponent(runId)}/events`,
      abort.signal,
      (message) => {
        const event = JSON.parse(message.data) as GraphEvent;
        applyEvent(view, event);
        onEvent?.(event);
        frame ||= requestAnimationFrame(publish);
      },
      (message) => message.event === 'run.finished',
    ).catch(async (err: unknown) => {
      if (abort.signal.aborted) return;
      // The event log is retained for a while (PARLEY_RUN_RETENTION_MS); execution memory keeps the record.
      if (err instanceof ApiError && err.status === 404 && view.eventCount === 0) {
        try {
          const record = await api<RunRecord>(`/api/runs/${encodeURIComponent(runId)}`, { signal: abort.signal });
          if (!abort.signal.aborted) {
            setFeed({ view: viewFromRecord(record), replayedFrom: 'record' });
            onRecord?.(record);
          }
          return;
        } catch (recordErr) {
          err = recordErr;
        }
      }
      if (!abort.signal.aborted)
        setFeed({ view: { ...view }, error: err instanceof ApiError ? err.message : String(err) });
    });
    return () => {
      abort.abort();
      if (frame) cancelAnimationFrame(frame);
    };
    // onEvent and onRecord are notification hooks: a new function identity must not restart the stream.
  }, [runId]);
  return feed;
}
