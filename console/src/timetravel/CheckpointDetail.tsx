/** What one checkpoint holds: its moment, the plan in force, the steps finished with their outputs, usage. */
import type { RunCheckpoint } from '../api/types.ts';
import { formatCost } from '../run/step-state.ts';

export function CheckpointDetail({ checkpoint: c }: { checkpoint: RunCheckpoint }) {
  const finished = new Map(c.steps.map((s) => [s.stepId, s]));
  return (
    <div className="checkpoint" aria-label="Checkpoint" data-checkpoint={c.id}>
      <p>
        <strong>{c.label}</strong>{' '}
        <span className="muted">
          · {c.id} · {new Date(c.at).toLocaleTimeString()}
        </span>
      </p>
      <p className="muted">
        {c.route && <>route {c.route} · </>}
        {c.usage.modelCalls} model calls · {c.usage.toolCalls} tool calls · {c.usage.inputTokens + c.usage.outputTokens}{' '}
        tokens · {formatCost(c.usage.costUsd)}
        {c.verification && (
          <>
            {' '}
            · verifier {c.verification.score} ({c.verification.next})
          </>
        )}
      </p>
      {c.plan ? (
        <table className="checkpoint-plan">
          <thead>
            <tr>
              <th>step</th>
              <th>specialist</th>
              <th>objective</th>
              <th>at this checkpoint</th>
            </tr>
          </thead>
          <tbody>
            {c.plan.steps.map((s) => {
              const done = finished.get(s.id);
              return (
                <tr key={s.id} data-step-id={s.id} data-finished={done ? done.status : 'no'}>
                  <td>
                    <code>{s.id}</code>
                    {s.dependsOn.length > 0 && <small className="muted"> after {s.dependsOn.join(', ')}</small>}
                  </td>
                  <td>{s.specialist}</td>
                  <td className="clip-cell">{s.objective}</td>
                  <td className="clip-cell">
                    {done ? (
                      <>
                        <span className="tag">{done.status}</span> {done.output ?? done.error ?? ''}
                      </>
                    ) : (
                      <span className="muted">not finished: runs in a fork</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : (
        <p className="muted">No plan yet at this moment: a fork routes as this run did and goes on from there.</p>
      )}
    </div>
  );
}
