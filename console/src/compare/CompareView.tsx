/**
 * #/compare/<a>/<b>: two runs side by side (GET /api/runs/compare): plan, steps with outputs, verifier
 * scores, calls, tokens, cost, wall time, answer; every row the server lists as a difference is marked
 * (a word and a colour). #/compare/<a> alone asks which run to compare it with.
 */
import type { ComparedRun, Difference, RunSummary } from '../api/types.ts';
import { formatCost, formatMs } from '../run/step-state.ts';
import { hrefOf, navigate } from '../shell/route.ts';
import { useLoad } from '../shell/useLoad.ts';

type Cell = string | number | undefined;

function Row({ label, field, a, b, diffs }: { label: string; field: string; a: Cell; b: Cell; diffs: Set<string> }) {
  const differs = diffs.has(field);
  return (
    <tr className={differs ? 'differs' : undefined} data-field={field} data-differs={differs}>
      <th scope="row">
        {label}
        {differs && <span className="diff-mark"> ≠ differs</span>}
      </th>
      <td title={a === undefined ? undefined : String(a)}>
        <span className="clamp">{a ?? '—'}</span>
      </td>
      <td title={b === undefined ? undefined : String(b)}>
        <span className="clamp">{b ?? '—'}</span>
      </td>
    </tr>
  );
}

function stepCell(run: ComparedRun, id: string): string | undefined {
  const s = run.steps.find((x) => x.stepId === id);
  if (!s) return undefined;
  return `${s.carried ? 'carried, ' : ''}${s.status}${s.model ? ` · ${s.model}` : ''}: ${s.output ?? s.error ?? ''}`;
}

function Pick({ a }: { a: string }) {
  const runs = useLoad<{ runs: RunSummary[] }>('/api/runs?limit=50');
  return (
    <section className="panel" aria-label="Compare with">
      <h2>Compare run {a} with…</h2>
      {runs.error && <p className="error">{runs.error}</p>}
      <ul className="pick">
        {runs.data?.runs
          .filter((r) => r.id !== a)
          .map((r) => (
            <li key={r.id}>
              <button type="button" className="link" onClick={() => navigate({ view: 'compare', a, b: r.id })}>
                {r.query.slice(0, 100)}
              </button>{' '}
              <span className="muted">
                {r.status} · {new Date(r.startedAt).toLocaleString()} · {r.id}
              </span>
            </li>
          ))}
      </ul>
    </section>
  );
}

export default function CompareView({ a, b }: { a: string; b?: string }) {
  const compared = useLoad<{ a: ComparedRun; b: ComparedRun; differences: Difference[] }>(
    b ? `/api/runs/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}` : undefined,
  );
  if (!b) return <Pick a={a} />;
  if (compared.error) return <p className="error">{compared.error}</p>;
  if (!compared.data) return <p className="muted">Loading…</p>;
  const { a: x, b: y, differences } = compared.data;
  const diffs = new Set(differences.map((d) => d.field));
  // A step row differs when any of its fields does (steps.<id>, .status, .output, .model).
  for (const d of differences) if (d.field.startsWith('steps.')) diffs.add(`steps.${d.field.split('.')[1]}`);
  const stepIds = [
    ...new Set([
      ...x.plan.map((s) => s.id),
      ...x.steps.map((s) => s.stepId),
      ...y.plan.map((s) => s.id),
      ...y.steps.map((s) => s.stepId),
    ]),
  ];
  const plan = (r: ComparedRun) => r.plan.map((s) => `${s.id}:${s.specialist}`).join(' → ') || 'no plan';
  const usage = (r: ComparedRun, k: 'modelCalls' | 'toolCalls' | 'inputTokens' | 'outputTokens') => r.usage?.[k];
  return (
    <div className="compare">
      <section className="panel" aria-label="Comparison">
        <h2>Two runs side by side</h2>
        <p className="muted">
          {differences.length} difference{differences.length === 1 ? '' : 's'}; rows marked ≠ differ.
        </p>
        <table className="compare-table">
          <thead>
            <tr>
              <th />
              <th>
                A: <a href={hrefOf({ view: 'run', runId: x.runId })}>{x.runId}</a>
              </th>
              <th>
                B: <a href={hrefOf({ view: 'run', runId: y.runId })}>{y.runId}</a>
              </th>
            </tr>
          </thead>
          <tbody>
            <Row label="query" field="query" a={x.query} b={y.query} diffs={diffs} />
            <Row
              label="origin"
              field="origin"
              a={
                x.forkedFrom
                  ? `fork of ${x.forkedFrom.runId} at ${x.forkedFrom.checkpoint}`
                  : x.replayOf
                    ? `replay of ${x.replayOf}`
                    : 'new run'
              }
              b={
                y.forkedFrom
                  ? `fork of ${y.forkedFrom.runId} at ${y.forkedFrom.checkpoint}`
                  : y.replayOf
                    ? `replay of ${y.replayOf}`
                    : 'new run'
              }
              diffs={diffs}
            />
            <Row label="status" field="status" a={x.status} b={y.status} diffs={diffs} />
            <Row label="route" field="route" a={x.route} b={y.route} diffs={diffs} />
            <Row label="plan" field="plan" a={plan(x)} b={plan(y)} diffs={diffs} />
            <Row label="plan rounds" field="planRounds" a={x.planRounds} b={y.planRounds} diffs={diffs} />
            {stepIds.map((id) => (
              <Row
                key={id}
                label={`step ${id}`}
                field={`steps.${id}`}
                a={stepCell(x, id)}
                b={stepCell(y, id)}
                diffs={diffs}
              />
            ))}
            <Row
              label="verifier scores"
              field="verification.scores"
              a={x.verification.map((v) => v.score).join(', ') || undefined}
              b={y.verification.map((v) => v.score).join(', ') || undefined}
              diffs={diffs}
            />
            <Row
              label="step models"
              field="stepModels"
              a={x.stepModels.join(', ') || undefined}
              b={y.stepModels.join(', ') || undefined}
              diffs={diffs}
            />
            <Row
              label="model calls"
              field="usage.modelCalls"
              a={usage(x, 'modelCalls')}
              b={usage(y, 'modelCalls')}
              diffs={diffs}
            />
            <Row
              label="tool calls"
              field="usage.toolCalls"
              a={usage(x, 'toolCalls')}
              b={usage(y, 'toolCalls')}
              diffs={diffs}
            />
            <Row
              label="input tokens"
              field="usage.inputTokens"
              a={usage(x, 'inputTokens')}
              b={usage(y, 'inputTokens')}
              diffs={diffs}
            />
            <Row
              label="output tokens"
              field="usage.outputTokens"
              a={usage(x, 'outputTokens')}
              b={usage(y, 'outputTokens')}
              diffs={diffs}
            />
            <Row
              label="cost"
              field="usage.costUsd"
              a={x.usage ? formatCost(x.usage.costUsd) : undefined}
              b={y.usage ? formatCost(y.usage.costUsd) : undefined}
              diffs={diffs}
            />
            <Row
              label="wall time"
              field="durationMs"
              a={formatMs(x.durationMs)}
              b={formatMs(y.durationMs)}
              diffs={diffs}
            />
            <Row label="answer" field="answer" a={x.answer} b={y.answer} diffs={diffs} />
          </tbody>
        </table>
        <p>
          <a href={hrefOf({ view: 'compare', a: y.runId, b: x.runId })}>Swap A and B</a> ·{' '}
          <a href={hrefOf({ view: 'compare', a: x.runId })}>Compare A with another run</a>
        </p>
      </section>
    </div>
  );
}
