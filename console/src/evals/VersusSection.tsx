/**
 * The versus section of a scorecard (`parley eval --versus direct`, docs/evals.md): per case the graph's
 * result against one direct call of the same model — what the blind judge preferred with the graph as A and
 * with the direct answer as A — and each side's calls and tokens; overall the share won or tied, what each
 * side and the judge spent, and where the graph lost, with the judge's reason.
 */
import type { VersusCaseScore, VersusSummary } from '../api/types.ts';
import { formatCost } from '../run/step-state.ts';

const pct = (x: number) => `${Math.round(x * 100)}%`;
const mean = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
const RESULT_CLASS = { win: 'ok', tie: 'muted', loss: 'bad' } as const;

function resultCell(c: VersusCaseScore) {
  if (c.result) return <td className={RESULT_CLASS[c.result]}>{c.result}</td>;
  if (c.compared === 0) return <td className="bad">not compared</td>;
  return (
    <td>
      {c.wins} win · {c.ties} tie · {c.losses} loss{c.errors ? ` · ${c.errors} not compared` : ''}
    </td>
  );
}

/** A summary line: "3 wins · 8 ties · 1 loss · won or tied 11/12 (92%)". */
function versusLine(o: VersusSummary['overall']): string {
  const counts = `${o.wins} win${o.wins === 1 ? '' : 's'} · ${o.ties} tie${o.ties === 1 ? '' : 's'} · ${o.losses} loss${o.losses === 1 ? '' : 'es'}`;
  return `${counts} · won or tied ${o.wonOrTied}/${o.compared} (${pct(o.wonOrTiedRate)})${o.errors ? ` · ${o.errors} not compared` : ''}`;
}

export default function VersusSection({ versus, repeat }: { versus: VersusSummary; repeat: number }) {
  const o = versus.overall;
  const one = repeat === 1;
  const spend = (s: VersusSummary['overall']['spend']['graph']) =>
    `${s.calls} calls · ${s.tokens} tokens · ${formatCost(s.costUsd)}`;
  return (
    <section aria-label="Versus direct" className="versus">
      <h3>Against one direct call of the same model</h3>
      <p>
        Each case was also answered by one bare call of the same model; a judge that never learns which answer is which
        compared the two in both orders (a tie when the orders disagree).
      </p>
      <p>
        <strong className={o.losses === 0 && o.errors === 0 ? 'ok' : 'bad'}>{versusLine(o)}</strong>
      </p>
      <p className="muted">
        graph: {spend(o.spend.graph)} — direct: {spend(o.spend.direct)} — judge: {spend(o.spend.judge)}
      </p>
      <table>
        <thead>
          <tr>
            <th>case</th>
            <th>result</th>
            {one && <th>graph as A</th>}
            {one && <th>direct as A</th>}
            <th>graph calls</th>
            <th>graph tokens</th>
            <th>direct calls</th>
            <th>direct tokens</th>
          </tr>
        </thead>
        <tbody>
          {versus.cases.map((c) => (
            <tr key={c.id} data-versus-case={c.id} data-result={c.result ?? ''}>
              <td>{c.id}</td>
              {resultCell(c)}
              {one && <td>{c.orders?.[0] ?? '-'}</td>}
              {one && <td>{c.orders?.[1] ?? '-'}</td>}
              <td>{mean(c.graph.meanCalls)}</td>
              <td>{Math.round(c.graph.meanTokens)}</td>
              <td>{mean(c.direct.meanCalls)}</td>
              <td>{Math.round(c.direct.meanTokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {versus.notes.length > 0 && (
        <ul className="failures">
          {versus.notes.map((n, i) => (
            <li key={i} data-case={n.id}>
              <strong>{n.id}</strong>
              {!one && <> #{n.repeat}</>}: {n.what === 'loss' ? 'the direct call won' : 'not compared'}:{' '}
              <span className="muted">{n.detail}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
