/**
 * #/evals: the last scorecards `parley eval` kept for the signed-in caller (GET /api/evals), newest
 * first; #/evals/<id>: one in full (GET /api/evals/:id): per case its pass rate, pass^k, calls, tokens,
 * cost and wall time, then each failed check with what was found; with `--versus direct`, the graph against
 * one direct call (VersusSection.tsx).
 */
import type { Scorecard, ScorecardSummary, VersusSummary } from '../api/types.ts';
import { formatCost, formatMs } from '../run/step-state.ts';
import { hrefOf } from '../shell/route.ts';
import { useLoad } from '../shell/useLoad.ts';
import VersusSection from './VersusSection.tsx';

const pct = (x: number) => `${Math.round(x * 100)}%`;

function List() {
  const list = useLoad<{ scorecards: ScorecardSummary[] }>('/api/evals');
  const cards = list.data?.scorecards ?? [];
  return (
    <section className="panel" aria-label="Scorecards">
      <h2>
        Evaluation suites{' '}
        <button type="button" className="secondary" onClick={list.reload} disabled={list.loading}>
          Refresh
        </button>
      </h2>
      {list.error && <p className="error">{list.error}</p>}
      {list.data && cards.length === 0 && (
        <p className="muted">
          No scorecard yet. Run <code>parley eval evals/starter.yaml</code>: its scorecard shows here (docs/evals.md).
        </p>
      )}
      {cards.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>when</th>
              <th>suite</th>
              <th>runs passed</th>
              <th>pass^k</th>
              <th>failed checks</th>
              <th>versus direct</th>
              <th>calls</th>
              <th>tokens</th>
              <th>cost</th>
              <th>wall</th>
            </tr>
          </thead>
          <tbody>
            {cards.map((s) => (
              <tr key={s.id} data-scorecard={s.id} data-passed={s.overall.passed === s.overall.runs}>
                <td>
                  <a href={hrefOf({ view: 'evals', id: s.id })}>{new Date(s.at).toLocaleString()}</a>
                </td>
                <td>
                  {s.suite}
                  {s.repeat > 1 && <span className="muted"> ×{s.repeat}</span>}
                  {s.configuration && <span className="muted"> on {s.configuration}</span>}
                </td>
                <td className={s.overall.passed === s.overall.runs ? 'ok' : 'bad'}>
                  {s.overall.passed}/{s.overall.runs} ({pct(s.overall.passRate)})
                </td>
                <td>
                  {s.overall.casesPassedAll}/{s.overall.cases} ({pct(s.overall.passHatK)})
                </td>
                <td>{s.failures}</td>
                <td className={s.versus ? (s.versus.losses || s.versus.errors ? 'bad' : 'ok') : 'muted'}>
                  {s.versus
                    ? `${s.versus.wins}W ${s.versus.ties}T ${s.versus.losses}L (${pct(s.versus.wonOrTiedRate)} won or tied)`
                    : '-'}
                </td>
                <td>{s.totals.calls}</td>
                <td>{s.totals.tokens}</td>
                <td>{formatCost(s.totals.costUsd)}</td>
                <td>{formatMs(s.totals.wallMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Card({ id }: { id: string }) {
  const one = useLoad<ScorecardSummary & { scorecard: Scorecard & { versus?: VersusSummary } }>(
    `/api/evals/${encodeURIComponent(id)}`,
  );
  if (one.error) return <p className="error">{one.error}</p>;
  if (!one.data) return <p className="muted">Loading…</p>;
  const { scorecard: card, ...s } = one.data;
  const k = card.repeat;
  return (
    <section className="panel scorecard" aria-label="Scorecard" data-scorecard={s.id}>
      <p>
        <a href={hrefOf({ view: 'evals' })}>← all scorecards</a>
      </p>
      <h2>
        Suite {card.suite}
        {card.configuration && <span className="muted"> on {card.configuration}</span>}
        {k > 1 && <span className="muted"> (each case {k} times)</span>}
      </h2>
      <p>
        <strong className={s.overall.passed === s.overall.runs ? 'ok' : 'bad'}>
          {s.overall.passed}/{s.overall.runs} runs passed ({pct(s.overall.passRate)})
        </strong>{' '}
        · {k > 1 ? `pass^${k}` : 'cases passed'} {s.overall.casesPassedAll}/{s.overall.cases} ({pct(s.overall.passHatK)}
        ) · {s.totals.calls} calls · {s.totals.tokens} tokens · {formatCost(s.totals.costUsd)} ·{' '}
        {formatMs(s.totals.wallMs)} · {new Date(s.at).toLocaleString()}
      </p>
      <table>
        <thead>
          <tr>
            <th>case</th>
            <th>pass</th>
            <th>{k > 1 ? `pass^${k}` : 'result'}</th>
            <th>calls</th>
            <th>tokens</th>
            <th>cost</th>
            <th>wall</th>
          </tr>
        </thead>
        <tbody>
          {card.cases.map((c) => (
            <tr key={c.id} data-case={c.id} data-pass={c.passAll === 1}>
              <td>{c.id}</td>
              <td>
                {c.passed}/{c.runs}
              </td>
              <td className={c.passAll ? 'ok' : 'bad'}>{c.passAll ? '✓ PASS' : '✗ FAIL'}</td>
              <td>{c.meanCalls.toFixed(1)}</td>
              <td>{Math.round(c.meanTokens)}</td>
              <td>{formatCost(c.meanCostUsd)}</td>
              <td>{formatMs(c.meanWallMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {card.failures.length > 0 && (
        <>
          <h3>Failed checks</h3>
          <ul className="failures">
            {card.failures.map((f, i) => (
              <li key={i} data-case={f.id}>
                <strong>{f.id}</strong>
                {k > 1 && <> #{f.repeat}</>}: {f.check}: <span className="muted">{f.detail}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {card.versus && <VersusSection versus={card.versus} repeat={k} />}
      {s.outcomesDropped && <p className="muted">Kept without its per-run outcomes (it was over the size limit).</p>}
    </section>
  );
}

export default function EvalsView({ id }: { id?: string }) {
  return <div className="evals">{id ? <Card id={id} /> : <List />}</div>;
}
