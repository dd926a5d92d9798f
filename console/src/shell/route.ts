/**
 * The console's address is its hash (#/chat/<thread>, #/runs/<run>, #/compare/<a>/<b>, #/evals/<id>,
 * #/approvals, #/history, #/knowledge):
 * a reload or a shared link opens the same view, and the server needs one page only.
 */
import { useEffect, useState } from 'react';

export type Route =
  | { view: 'chat'; threadId?: string }
  | { view: 'run'; runId: string }
  | { view: 'compare'; a: string; b?: string }
  | { view: 'evals'; id?: string }
  | { view: 'approvals' }
  | { view: 'history' }
  | { view: 'knowledge' };

export function parseRoute(hash: string): Route {
  const [view, id, other] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (view === 'runs' && id) return { view: 'run', runId: id };
  if (view === 'compare' && id) return other ? { view: 'compare', a: id, b: other } : { view: 'compare', a: id };
  if (view === 'evals') return id ? { view: 'evals', id } : { view: 'evals' };
  if (view === 'approvals' || view === 'history' || view === 'knowledge') return { view };
  return id ? { view: 'chat', threadId: id } : { view: 'chat' };
}

export function hrefOf(route: Route): string {
  switch (route.view) {
    case 'chat':
      return route.threadId ? `#/chat/${encodeURIComponent(route.threadId)}` : '#/chat';
    case 'run':
      return `#/runs/${encodeURIComponent(route.runId)}`;
    case 'compare':
      return `#/compare/${encodeURIComponent(route.a)}${route.b ? `/${encodeURIComponent(route.b)}` : ''}`;
    case 'evals':
      return route.id ? `#/evals/${encodeURIComponent(route.id)}` : '#/evals';
    default:
      return `#/${route.view}`;
  }
}

export function navigate(route: Route, replace = false): void {
  const href = hrefOf(route);
  if (replace) history.replaceState(null, '', href);
  else location.hash = href;
  if (replace) window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
