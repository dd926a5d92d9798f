/**
 * Chat: a thread's turns (GET /api/threads/:id), a question in any mode sent over AG-UI, the answer
 * streaming in, and beside it the run's graph, live. A turn's "graph" link shows an earlier run.
 */
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type FormEvent } from 'react';

import { CHAT_MODES, type GraphEvent, type RunMode } from '../api/types.ts';
import { navigate } from '../shell/route.ts';
import { newId } from './ids.ts';
import { lastThread, threadTurns, type Turn } from './thread-turns.ts';

const RunDetail = lazy(() => import('../run/RunDetail.tsx'));

export function ChatView({ threadId, onApprovalRequired }: { threadId?: string; onApprovalRequired: () => void }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [live, setLive] = useState<Turn | undefined>(undefined);
  const [shownRun, setShownRun] = useState<string | undefined>(undefined);
  const [mode, setMode] = useState<RunMode>('auto');
  const [question, setQuestion] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  /** The thread this page just started: arriving at its address must not clear the run in flight. */
  const startedHere = useRef<string | undefined>(undefined);

  const loadThread = useCallback(async () => {
    lastThread.set(threadId);
    if (!threadId) return setTurns([]);
    // A thread this page just started has no stored turns until its first run ends.
    if (threadId === startedHere.current) return;
    try {
      const loaded = await threadTurns(threadId);
      setTurns(loaded);
      setShownRun((shown) => shown ?? loaded.at(-1)?.runId);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, [threadId]);

  useEffect(() => {
    if (threadId === undefined || threadId !== startedHere.current) {
      setShownRun(undefined);
      setLive(undefined);
    }
    void loadThread();
  }, [loadThread, threadId]);

  /** A run this page did not start (found running on the thread) streams its answer through its events. */
  const followTurn = useCallback(
    (event: GraphEvent) => {
      if (event.type !== 'answer.delta' && event.type !== 'run.finished') return;
      setTurns((known) =>
        known.map((t) => {
          if (t.runId !== event.runId || t.status !== 'running') return t;
          if (event.type === 'answer.delta') return { ...t, answer: (t.answer ?? '') + event.text };
          return { ...t, status: event.status, ...(event.answer !== undefined ? { answer: event.answer } : {}) };
        }),
      );
    },
    [setTurns],
  );

  const send = async (e: FormEvent) => {
    e.preventDefault();
    const text = question.trim();
    if (!text || live) return;
    const thread = threadId ?? newId();
    if (!threadId) {
      startedHere.current = thread;
      navigate({ view: 'chat', threadId: thread }, true);
    }
    setQuestion('');
    setError(undefined);
    setLive({ runId: '', user: text, status: 'running' });
    let answer: string | undefined;
    let started = false;
    const { sendQuestion } = await import('./send.ts');
    const result = await sendQuestion(thread, text, mode, {
      onStarted: (runId) => {
        started = true;
        setLive((t) => t && { ...t, runId });
        setShownRun(runId);
      },
      onAnswer: (text) => {
        answer = text;
        setLive((t) => t && { ...t, answer: text });
      },
      onApprovalRequired,
    });
    // Once the run started, its own view says how it ends: a lost connection leaves it running on the
    // server (continueOnDisconnect), and the graph beside follows it from its event log.
    if (result.error && !started) setError(result.error);
    const finished: Turn = {
      runId: result.runId,
      user: text,
      status: !result.error ? 'completed' : started ? 'running' : 'failed',
      ...(answer !== undefined ? { answer } : {}),
    };
    setLive(undefined);
    // The thread's stored turns are the record; until they load, the turn just run stays shown.
    setTurns((known) => (known.some((t) => t.runId === result.runId) ? known : [...known, finished]));
    try {
      setTurns(await threadTurns(thread));
    } catch {
      // keep what was shown
    }
  };

  const all = live ? [...turns, live] : turns;
  return (
    <div className="chat">
      <section className="thread" aria-label="Conversation">
        <div className="thread-head">
          <button
            type="button"
            onClick={() => {
              lastThread.set(undefined);
              navigate({ view: 'chat' });
            }}
          >
            New chat
          </button>
          {threadId && <small className="muted">thread {threadId}</small>}
        </div>
        <ol className="turns" aria-live="polite">
          {all.length === 0 && <li className="muted">Ask anything. The run's graph appears on the right.</li>}
          {all.map((turn, i) => (
            <li key={turn.runId || `live-${i}`} className="turn" data-run-id={turn.runId}>
              <div className="user">{turn.user}</div>
              <div className="answer">{turn.answer ?? (turn === live ? '…' : `(${turn.status})`)}</div>
              {turn.runId && (
                <button type="button" className="link" onClick={() => setShownRun(turn.runId)}>
                  {shownRun === turn.runId ? 'shown' : 'show graph'}
                </button>
              )}
            </li>
          ))}
        </ol>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <form className="ask" onSubmit={send}>
          <label htmlFor="question">Question</label>
          <textarea
            id="question"
            value={question}
            rows={3}
            onChange={(e) => setQuestion(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) void send(e);
            }}
          />
          <div className="ask-row">
            <label htmlFor="mode">Mode</label>
            <select id="mode" value={mode} onChange={(e) => setMode(e.target.value as RunMode)}>
              {CHAT_MODES.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
            <button type="submit" disabled={!question.trim() || live !== undefined}>
              {live ? 'Running…' : 'Send'}
            </button>
          </div>
        </form>
      </section>
      <section className="run-pane" aria-label="Run">
        {shownRun ? (
          <Suspense fallback={<p className="muted">Loading the graph…</p>}>
            <RunDetail key={shownRun} runId={shownRun} onEvent={followTurn} />
          </Suspense>
        ) : (
          <p className="muted">No run yet.</p>
        )}
      </section>
    </div>
  );
}
