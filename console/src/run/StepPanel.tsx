/** One step's lineage: model, tokens, cost, time, tool calls with arguments and results, sources, output. */
import type { StepView } from './run-view.ts';
import { formatCost, formatMs, STATE_LABEL } from './step-state.ts';

const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

export function StepPanel({ step }: { step: StepView }) {
  const lineage = step.lineage;
  return (
    <section className="panel step-panel" aria-label={`Step ${step.id}`}>
      <h3>
        {step.specialist} <small>({step.id})</small>
      </h3>
      <p>
        <strong>{STATE_LABEL[step.state].word}</strong>
        {step.parentStepId && <> · spawned by {step.parentStepId}</>}
        {step.dependsOn.length > 0 && <> · after {step.dependsOn.join(', ')}</>}
      </p>
      <p className="objective">{step.objective}</p>
      {lineage && (
        <dl className="facts">
          <dt>Model</dt>
          <dd>{lineage.model ?? step.model ?? '—'}</dd>
          <dt>Tokens</dt>
          <dd>
            {lineage.usage.inputTokens} in · {lineage.usage.outputTokens} out
            {lineage.usage.cachedTokens ? ` · ${lineage.usage.cachedTokens} cached` : ''}
          </dd>
          <dt>Cost</dt>
          <dd>{formatCost(lineage.usage.costUsd)}</dd>
          <dt>Time</dt>
          <dd>{formatMs(lineage.durationMs)}</dd>
          <dt>Kind</dt>
          <dd>{lineage.kind}</dd>
        </dl>
      )}
      {step.tools.length > 0 && (
        <>
          <h4>Tool calls</h4>
          <ul className="tool-calls">
            {step.tools.map((t) => (
              <li key={t.toolCallId} data-tool-state={t.state}>
                <strong>{t.tool}</strong> — {t.state}
                {t.durationMs !== undefined && ` (${formatMs(t.durationMs)})`}
                <details>
                  <summary>arguments</summary>
                  <pre>{json(t.args)}</pre>
                </details>
                {(t.result ?? t.error) && (
                  <details open>
                    <summary>{t.error ? 'error' : 'result'}</summary>
                    <pre>{t.error ?? t.result}</pre>
                  </details>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {lineage?.named && lineage.named.length > 0 && (
        <>
          <h4>Read or wrote</h4>
          <ul>
            {lineage.named.map((s) => (
              <li key={`${s.kind}:${s.uri ?? s.title}`} title={s.uri}>
                {s.title} <span className="muted">({s.kind})</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {lineage && lineage.sources.length > 0 && (
        <>
          <h4>Sources</h4>
          <ul>
            {lineage.sources.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </>
      )}
      {step.error && <p className="error">{step.error}</p>}
      {(step.output ?? step.text) && (
        <>
          <h4>{step.output ? 'Output' : 'So far'}</h4>
          <pre className="output">{step.output ?? step.text}</pre>
        </>
      )}
    </section>
  );
}
