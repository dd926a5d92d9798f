/**
 * A run's checkpoints on a timeline (GET /api/runs/:id/checkpoints, the light list), the selected one
 * in full (GET /api/runs/:id/checkpoints/:checkpoint), and "Fork from here" with the edit form.
 */
import { useEffect, useRef, useState } from 'react';
import type { CheckpointEntry, RunCheckpoint } from '../api/types.ts';
import { useLoad } from '../shell/useLoad.ts';
import { CheckpointDetail } from './CheckpointDetail.tsx';
import { ForkForm } from './ForkForm.tsx';
import { Timeline } from './Timeline.tsx';

export function TimeTravel({
  runId,
  query,
  moments,
  ended,
}: {
  runId: string;
  query: string;
  moments: number;
  ended: boolean;
}) {
  const base = `/api/runs/${encodeURIComponent(runId)}/checkpoints`;
  const list = useLoad<{ checkpoints: CheckpointEntry[] }>(base);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [forking, setForking] = useState(false);
  const one = useLoad<{ checkpoint: RunCheckpoint }>(selected ? `${base}/${encodeURIComponent(selected)}` : undefined);
  const { reload } = list;
  const lastRead = useRef(0);
  // A live run reaches new checkpoints: read the list again, at most once a second while it runs.
  useEffect(() => {
    if (moments === 0) return;
    const wait = ended ? 0 : Math.max(0, lastRead.current + 1000 - Date.now());
    const timer = setTimeout(() => {
      lastRead.current = Date.now();
      reload();
    }, wait);
    return () => clearTimeout(timer);
  }, [moments, ended, reload]);

  const checkpoints = list.data?.checkpoints ?? [];
  return (
    <section className="panel time-travel" aria-label="Checkpoints">
      <h3>Checkpoints</h3>
      {list.error && <p className="error">{list.error}</p>}
      {!list.error && checkpoints.length === 0 && <p className="muted">No checkpoint yet.</p>}
      <Timeline
        checkpoints={checkpoints}
        selected={selected}
        onSelect={(id) => {
          setSelected(id);
          setForking(false);
        }}
      />
      {one.error && <p className="error">{one.error}</p>}
      {one.data && one.data.checkpoint.id === selected && (
        <>
          <CheckpointDetail checkpoint={one.data.checkpoint} />
          {!forking && (
            <button type="button" onClick={() => setForking(true)}>
              Fork from here
            </button>
          )}
          {forking && (
            <ForkForm runId={runId} query={query} checkpoint={one.data.checkpoint} onCancel={() => setForking(false)} />
          )}
        </>
      )}
    </section>
  );
}
