/** #/runs/<id>: one run's graph, summary and answer, live while it runs, replayed after. */
import { useState } from 'react';
import type { GraphEvent } from '../api/types.ts';
import RunDetail from './RunDetail.tsx';

export default function RunPage({ runId }: { runId: string }) {
  const [answer, setAnswer] = useState('');
  const [query, setQuery] = useState('');
  const onEvent = (event: GraphEvent) => {
    if (event.type === 'run.started') setQuery(event.query);
    if (event.type === 'answer.delta') setAnswer((a) => a + event.text);
    if (event.type === 'run.finished' && event.answer !== undefined) setAnswer(event.answer);
  };
  return (
    <div className="run-page">
      <h2 className="clip">{query || `Run ${runId}`}</h2>
      <RunDetail runId={runId} onEvent={onEvent} />
      {answer && (
        <section className="panel" aria-label="Answer">
          <h3>Answer</h3>
          <div className="answer">{answer}</div>
        </section>
      )}
    </div>
  );
}
