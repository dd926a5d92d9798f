/** What the run as a whole did: route, verifier rounds, council stages, team messages, usage and cost. */
import { useState } from 'react';
import { api, ApiError } from '../api/client.ts';
import type { RunView } from './run-view.ts';
import { formatCost, formatMs } from './step-state.ts';

/** Stops a running run (POST /stream/:id/cancel): every step and agent in it is cancelled. */
function StopButton({ runId }: { runId: string }) {
  const [said, setSaid] = useState<string | undefined>(undefined);
  const stop = async () => {
    setSaid('Stopping…');
    try {
      await api(`/stream/${encodeURIComponent(runId)}/cancel`, { method: 'POST', body: {} });
    } catch (err) {
      // 409: it ended meanwhile, which the view shows on its own.
      setSaid(
        err instanceof ApiError && err.status === 409 ? undefined : String(err instanceof Error ? err.message : err),
      );
    }
  };
  return (
    <>
      <button type="button" className="danger" onClick={stop} disabled={said === 'Stopping…'}>
        Stop
      </button>
      {said && said !== 'Stopping…' && <span className="error"> {said}</span>}
    </>
  );
}

export function RunSummary({ view }: { view: RunView }) {
  const usage = view.usage;
  return (
    <section className="panel run-summary" aria-label="Run summary">
      {view.state === 'running' && <StopButton runId={view.runId} />}
      <p>
        <strong data-run-state={view.state}>{view.state}</strong>
        {view.node && <> · now in {view.node}</>}
        {view.mode && <> · mode {view.mode}</>}
        {view.protocol && <> · via {view.protocol}</>}
        {view.durationMs !== undefined && <> · {formatMs(view.durationMs)}</>}
      </p>
      {view.route && (
        <p>
          Route: <strong>{view.route.stage}</strong> — {view.route.reason}
        </p>
      )}
      {view.steps.length > 0 && view.path.length > 0 && (
        <p className="muted" aria-label="Path">
          {view.path.map((p) => p.node).join(' → ')}
        </p>
      )}
      {usage && (
        <p className="usage">
          {usage.modelCalls} model calls · {usage.toolCalls} tool calls · {usage.inputTokens + usage.outputTokens}{' '}
          tokens · {formatCost(usage.costUsd)}
        </p>
      )}
      {view.error && <p className="error">{view.error}</p>}
      {view.verifier.length > 0 && (
        <>
          <h4>Verifier</h4>
          <ol>
            {view.verifier.map((v) => (
              <li key={v.round}>
                round {v.round}: score {v.score.toFixed(2)} → {v.next}
                {v.feedback && <div className="muted">{v.feedback}</div>}
              </li>
            ))}
          </ol>
        </>
      )}
      {view.council.length > 0 && (
        <>
          <h4>Council</h4>
          <ol>
            {view.council.map((c, i) => (
              <li key={i}>
                <strong>{c.stage}</strong>: {c.detail}
                {c.verdict && (
                  <div>
                    {c.verdict.recommendation} (confidence {c.verdict.confidence})
                  </div>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
      {view.messages.length > 0 && (
        <>
          <h4>Team messages</h4>
          <ul className="messages">
            {view.messages.slice(-20).map((m, i) => (
              <li key={i}>
                {m.from} → {m.to === '*' ? 'everyone' : m.to}: {m.preview}
              </li>
            ))}
          </ul>
        </>
      )}
      {view.teamMemory.length > 0 && (
        <>
          <h4>Team memory</h4>
          <ul>
            {view.teamMemory.slice(-20).map((c, i) => (
              <li key={i}>
                {c.stepId} wrote <code>{c.key}</code>: {c.preview}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
