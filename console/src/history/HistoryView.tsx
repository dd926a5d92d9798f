/**
 * History and memory: runs (filtered by status, protocol and thread), threads, council decisions,
 * and a search of execution memory, all scoped by the server to the signed-in caller.
 */
import { useState, type FormEvent } from 'react';
import type { DecisionRecord, MemoryHit, RunSummary } from '../api/types.ts';
import { hrefOf } from '../shell/route.ts';
import { useLoad } from '../shell/useLoad.ts';

const STATUSES = ['', 'running', 'completed', 'failed', 'cancelled', 'blocked'];
const PROTOCOLS = ['', 'agui', 'sse', 'a2a', 'acp', 'mcp', 'openai', 'cli'];

interface ThreadSummary {
  threadId: string;
  updatedAt: number;
  turnCount: number;
  title: string;
}

function query(params: Record<string, string>): string {
  const set = Object.entries(params).filter(([, v]) => v !== '');
  return set.length ? `?${new URLSearchParams(set).toString()}` : '';
}

function Runs() {
  const [status, setStatus] = useState('');
  const [protocol, setProtocol] = useState('');
  const [threadId, setThreadId] = useState('');
  const runs = useLoad<{ runs: RunSummary[] }>(`/api/runs${query({ limit: '100', status, protocol, threadId })}`);
  const manyCallers = new Set(runs.data?.runs.map((r) => r.callerId)).size > 1;
  return (
    <section className="panel" aria-label="Runs">
      <h2>
        Runs{' '}
        <button type="button" className="secondary" onClick={runs.reload} disabled={runs.loading}>
          Refresh
        </button>
      </h2>
      <div className="filters">
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Protocol{' '}
          <select value={protocol} onChange={(e) => setProtocol(e.target.value)}>
            {PROTOCOLS.map((p) => (
              <option key={p} value={p}>
                {p || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Thread <input value={threadId} onChange={(e) => setThreadId(e.target.value.trim())} placeholder="any" />
        </label>
      </div>
      {runs.error && <p className="error">{runs.error}</p>}
      {/* An admin's list holds several callers' runs: then whose each is shows too. */}
      <table className="runs">
        <thead>
          <tr>
            <th>Started</th>
            <th>Question</th>
            <th>Status</th>
            <th>Protocol</th>
            {manyCallers && <th>Caller</th>}
            <th>Score</th>
          </tr>
        </thead>
        <tbody>
          {runs.data?.runs.map((run) => (
            <tr key={run.id} data-run-id={run.id}>
              <td>{new Date(run.startedAt).toLocaleString()}</td>
              <td>
                <a href={hrefOf({ view: 'run', runId: run.id })}>{run.query || run.id}</a>
                {run.forkedFrom && (
                  <small className="muted">
                    {' '}
                    fork of <a href={hrefOf({ view: 'run', runId: run.forkedFrom.runId })}>{run.forkedFrom.runId}</a>
                  </small>
                )}
              </td>
              <td>{run.status}</td>
              <td>{run.protocol}</td>
              {manyCallers && <td className="muted">{run.callerId}</td>}
              <td>{run.score === null ? '—' : run.score.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.data?.runs.length === 0 && <p className="muted">No runs match.</p>}
    </section>
  );
}

function Threads() {
  const threads = useLoad<{ threads: ThreadSummary[] }>('/api/threads?limit=50');
  return (
    <section className="panel" aria-label="Threads">
      <h2>Threads</h2>
      {threads.error && <p className="error">{threads.error}</p>}
      <ul>
        {threads.data?.threads.map((t) => (
          <li key={t.threadId}>
            <a href={hrefOf({ view: 'chat', threadId: t.threadId })}>{t.title || t.threadId}</a>{' '}
            <small className="muted">
              {t.turnCount} turns · {new Date(t.updatedAt).toLocaleString()}
            </small>
          </li>
        ))}
      </ul>
      {threads.data?.threads.length === 0 && <p className="muted">No conversations yet.</p>}
    </section>
  );
}

function Decisions() {
  const decisions = useLoad<{ decisions: DecisionRecord[] }>('/api/decisions?limit=20');
  return (
    <section className="panel" aria-label="Council decisions">
      <h2>Council decisions</h2>
      {decisions.error && <p className="error">{decisions.error}</p>}
      <ul>
        {decisions.data?.decisions.map((d) => (
          <li key={d.id}>
            <a href={hrefOf({ view: 'run', runId: d.runId })}>{d.question}</a> → {d.verdict.recommendation}{' '}
            <small className="muted">confidence {d.verdict.confidence}</small>
          </li>
        ))}
      </ul>
      {decisions.data?.decisions.length === 0 && <p className="muted">No council has decided anything yet.</p>}
    </section>
  );
}

function Memory() {
  const [text, setText] = useState('');
  const [q, setQ] = useState<string | undefined>(undefined);
  const hits = useLoad<{ hits: MemoryHit[] }>(q ? `/api/memory${query({ q, k: '10' })}` : undefined);
  const search = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim()) setQ(text.trim());
  };
  return (
    <section className="panel" aria-label="Execution memory">
      <h2>Execution memory</h2>
      <form onSubmit={search} className="filters">
        <label htmlFor="memory-q">Search earlier runs</label>
        <input id="memory-q" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit">Search</button>
      </form>
      {hits.error && <p className="error">{hits.error}</p>}
      <ol>
        {hits.data?.hits.map((h) => (
          <li key={h.runId}>
            <a href={hrefOf({ view: 'run', runId: h.runId })}>{h.query}</a>{' '}
            <small className="muted">relevance {h.relevance.toFixed(2)}</small>
            <div className="muted clip">{h.answer}</div>
          </li>
        ))}
      </ol>
      {hits.data?.hits.length === 0 && <p className="muted">Nothing found.</p>}
    </section>
  );
}

export default function HistoryView() {
  return (
    <div className="history">
      <Runs />
      <div className="history-side">
        <Threads />
        <Decisions />
        <Memory />
      </div>
    </div>
  );
}
