/** #/runs/<id>: one run's graph, summary and answer, live while it runs, replayed after; then its checkpoints. */
import { useState } from 'react';
import type { GraphEvent, RunRecord } from '../api/types.ts';
import { hrefOf } from '../shell/route.ts';
import { TimeTravel } from '../timetravel/TimeTravel.tsx';
import RunDetail from './RunDetail.tsx';

export default function RunPage({ runId }: { runId: string }) {
  const [answer, setAnswer] = useState('');
  const [query, setQuery] = useState('');
  const [forkedFrom, setForkedFrom] = useState<{ runId: string; checkpoint: string } | undefined>(undefined);
  // Bumped by every event that makes a checkpoint, so the timeline follows a live run.
  const [moments, setMoments] = useState(0);
  const [ended, setEnded] = useState(false);
  const onEvent = (event: GraphEvent) => {
    if (event.type === 'run.started') {
      setQuery(event.query);
      setForkedFrom(event.forkedFrom);
    }
    if (event.type === 'answer.delta') setAnswer((a) => a + event.text);
    if (event.type === 'run.finished') {
      if (event.answer !== undefined) setAnswer(event.answer);
      setEnded(true);
    }
    if (['route.decided', 'plan.ready', 'step.finished', 'verify.result', 'run.finished'].includes(event.type))
      setMoments((m) => m + 1);
  };
  // A finished run whose event log is gone is drawn from its record (GET /api/runs/:id), a fork's parent with it.
  const onRecord = (record: RunRecord) => {
    setQuery(record.query);
    setForkedFrom(record.forkedFrom);
    if (record.answer !== undefined) setAnswer(record.answer);
  };
  return (
    <div className="run-page">
      <h2 className="clip">{query || `Run ${runId}`}</h2>
      <p className="run-links">
        {forkedFrom && (
          <>
            Forked from <a href={hrefOf({ view: 'run', runId: forkedFrom.runId })}>{forkedFrom.runId}</a> at{' '}
            {forkedFrom.checkpoint} ·{' '}
            <a href={hrefOf({ view: 'compare', a: forkedFrom.runId, b: runId })}>Compare with its parent</a> ·{' '}
          </>
        )}
        <a href={hrefOf({ view: 'compare', a: runId })}>Compare with…</a>
      </p>
      <RunDetail runId={runId} onEvent={onEvent} onRecord={onRecord} />
      {answer && (
        <section className="panel" aria-label="Answer">
          <h3>Answer</h3>
          <div className="answer">{answer}</div>
        </section>
      )}
      <TimeTravel runId={runId} query={query} moments={moments} ended={ended} />
    </div>
  );
}
