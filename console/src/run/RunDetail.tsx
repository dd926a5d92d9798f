/** A run's live (or replayed) graph with its summary and the selected step's lineage. */
import { useState } from 'react';
import type { GraphEvent, RunRecord } from '../api/types.ts';
import { RunGraph } from './RunGraph.tsx';
import { RunSummary } from './RunSummary.tsx';
import { StepPanel } from './StepPanel.tsx';
import { useRunEvents } from './useRunEvents.ts';

export default function RunDetail({
  runId,
  onEvent,
  onRecord,
}: {
  runId: string;
  onEvent?: (event: GraphEvent) => void;
  /** Called with the run's record when its event log was gone and the view was drawn from the record. */
  onRecord?: (record: RunRecord) => void;
}) {
  const feed = useRunEvents(runId, onEvent, onRecord);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  if (!feed) return null;
  if (feed.error && feed.view.eventCount === 0) return <p className="error">{feed.error}</p>;
  const view = feed.view;
  const step = view.steps.find((s) => s.id === selected);
  return (
    <div className="run-detail" data-run-id={runId}>
      <RunGraph view={view} selected={selected} onSelect={setSelected} />
      <div className="run-side">
        <RunSummary view={view} />
        {step && <StepPanel step={step} />}
      </div>
    </div>
  );
}
