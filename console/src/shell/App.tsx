/**
 * The console's frame: sign-in when the server wants a key, the navigation (with the count of
 * approvals waiting), and the view the address names. Views other than chat load on first use.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { authRequired, onUnauthorized, session } from '../api/client.ts';
import { ChatView } from '../chat/ChatView.tsx';
import { lastThread } from '../chat/thread-turns.ts';
import { useApprovals } from '../approvals/useApprovals.ts';
import { hrefOf, useRoute, type Route } from './route.ts';
import { SignIn } from './SignIn.tsx';

const InboxView = lazy(() => import('../approvals/InboxView.tsx'));
const HistoryView = lazy(() => import('../history/HistoryView.tsx'));
const KnowledgeView = lazy(() => import('../knowledge/KnowledgeView.tsx'));
const RunPage = lazy(() => import('../run/RunPage.tsx'));
const CompareView = lazy(() => import('../compare/CompareView.tsx'));
const EvalsView = lazy(() => import('../evals/EvalsView.tsx'));

type Access = 'checking' | 'open' | 'signed-in' | 'signed-out' | 'refused';

const NAV: { label: string; route: Route }[] = [
  { label: 'Chat', route: { view: 'chat' } },
  { label: 'Approvals', route: { view: 'approvals' } },
  { label: 'History', route: { view: 'history' } },
  { label: 'Knowledge', route: { view: 'knowledge' } },
  { label: 'Evals', route: { view: 'evals' } },
];

export function App() {
  const route = useRoute();
  const [access, setAccess] = useState<Access>('checking');
  useEffect(() => {
    authRequired().then(
      (required) => setAccess(!required ? 'open' : session.key() ? 'signed-in' : 'signed-out'),
      () => setAccess('signed-out'),
    );
    return onUnauthorized(() => {
      session.signOut();
      setAccess('refused');
    });
  }, []);
  const ready = access === 'open' || access === 'signed-in';
  const approvals = useApprovals(ready);

  if (access === 'checking') return <p className="muted center">Connecting…</p>;
  if (!ready) return <SignIn refused={access === 'refused'} onSignedIn={() => setAccess('signed-in')} />;

  const current = route.view === 'run' || route.view === 'compare' ? 'history' : route.view;
  return (
    <>
      <header className="top">
        <strong className="brand">Parley</strong>
        <nav aria-label="Views">
          {NAV.map((item) => (
            <a
              key={item.label}
              href={hrefOf(item.route.view === 'chat' ? { view: 'chat', threadId: lastThread.get() } : item.route)}
              aria-current={item.route.view === current ? 'page' : undefined}
            >
              {item.label}
              {item.route.view === 'approvals' && approvals.pending.length > 0 && (
                <span className="badge" aria-label={`${approvals.pending.length} waiting`}>
                  {approvals.pending.length}
                </span>
              )}
            </a>
          ))}
        </nav>
        {access === 'signed-in' && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              session.signOut();
              setAccess('signed-out');
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <main>
        <Suspense fallback={<p className="muted">Loading…</p>}>
          {route.view === 'chat' && <ChatView threadId={route.threadId} onApprovalRequired={approvals.refresh} />}
          {route.view === 'approvals' && <InboxView approvals={approvals} />}
          {route.view === 'history' && <HistoryView />}
          {route.view === 'knowledge' && <KnowledgeView />}
          {route.view === 'run' && <RunPage key={route.runId} runId={route.runId} />}
          {route.view === 'compare' && <CompareView a={route.a} b={route.b} />}
          {route.view === 'evals' && <EvalsView id={route.id} />}
        </Suspense>
      </main>
    </>
  );
}
