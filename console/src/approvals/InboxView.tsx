/**
 * The approvals inbox: every pending tool approval and elicitation the signed-in caller may answer,
 * across runs and protocols. Keyboard: ↑/↓ (or k/j) move through the list, a accepts, d denies
 * (outside a text field); every control is a labelled button or field.
 */
import { useEffect, useRef, useState } from 'react';
import { api, ApiError } from '../api/client.ts';
import type { ApprovalRequest } from '../api/types.ts';
import { hrefOf } from '../shell/route.ts';
import { ElicitationForm, type ElicitationAnswer } from './ElicitationForm.tsx';
import { ToolApproval, type ToolAnswer } from './ToolApproval.tsx';
import type { Approvals } from './useApprovals.ts';

function summary(request: ApprovalRequest): string {
  return request.kind === 'tool'
    ? request.toolCalls.map((c) => c.tool).join(', ')
    : `${request.source}: ${request.message.slice(0, 80)}`;
}

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

export default function InboxView({ approvals }: { approvals: Approvals }) {
  const { pending, refresh } = approvals;
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | undefined>(undefined);
  const listRef = useRef<HTMLUListElement>(null);
  const selected = pending.find((r) => r.id === selectedId) ?? pending[0];

  const answer = async (request: ApprovalRequest, body: ToolAnswer | ElicitationAnswer, said: string) => {
    setBusy(true);
    try {
      await api('/api/approve', { body: { request_id: request.id, ...body } });
      setNotice({ text: `${said}: ${summary(request)}` });
    } catch (err) {
      setNotice({ text: err instanceof ApiError ? err.message : String(err), error: true });
    } finally {
      setBusy(false);
      refresh();
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.metaKey || e.ctrlKey || e.altKey || pending.length === 0) return;
      const index = Math.max(
        0,
        pending.findIndex((r) => r.id === selected?.id),
      );
      if (e.key === 'ArrowDown' || e.key === 'j' || e.key === 'ArrowUp' || e.key === 'k') {
        const next =
          pending[(index + (e.key === 'ArrowDown' || e.key === 'j' ? 1 : pending.length - 1)) % pending.length];
        if (next) {
          setSelectedId(next.id);
          listRef.current?.querySelector<HTMLElement>(`[data-request-id="${CSS.escape(next.id)}"]`)?.focus();
        }
        e.preventDefault();
      } else if (selected?.kind === 'tool' && !busy && (e.key === 'a' || e.key === 'd')) {
        const decision = e.key === 'a' ? 'accept' : 'deny';
        void answer(
          selected,
          { decisions: Object.fromEntries(selected.toolCalls.map((c) => [c.toolCallId, decision])) },
          decision === 'accept' ? 'Accepted' : 'Denied',
        );
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  return (
    <div className="inbox">
      <section className="inbox-list" aria-label="Pending requests">
        <h2>
          Approvals <span className="count">{pending.length} pending</span>
        </h2>
        {approvals.error && <p className="error">{approvals.error}</p>}
        {notice && (
          <p className={notice.error ? 'error' : 'notice'} role="status">
            {notice.text}
          </p>
        )}
        {pending.length === 0 ? (
          <p className="muted">Nothing waits for you. New requests appear here as runs ask.</p>
        ) : (
          <ul ref={listRef} role="listbox" aria-label="Requests">
            {pending.map((request) => (
              <li key={request.id}>
                <button
                  type="button"
                  role="option"
                  aria-selected={request.id === selected?.id}
                  data-request-id={request.id}
                  className={request.id === selected?.id ? 'selected' : ''}
                  onClick={() => setSelectedId(request.id)}
                >
                  <span className="tag">{request.kind === 'tool' ? 'tool call' : 'question'}</span> {summary(request)}
                  <small className="muted">
                    run {request.runId.slice(0, 8)} · since {new Date(request.createdAt).toLocaleTimeString()}
                  </small>
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      {selected && (
        <section className="inbox-detail" aria-label="Request" key={selected.id} data-request-id={selected.id}>
          <p className="muted">
            Run <a href={hrefOf({ view: 'run', runId: selected.runId })}>{selected.runId}</a>
            {selected.stepId && <> · step {selected.stepId}</>} · expires{' '}
            {new Date(selected.expiresAt).toLocaleString()}
          </p>
          {selected.kind === 'tool' ? (
            <ToolApproval
              request={selected}
              busy={busy}
              onAnswer={(body) =>
                answer(
                  selected,
                  body,
                  Object.values(body.decisions).some((d) => typeof d === 'object')
                    ? 'Edited and accepted'
                    : Object.values(body.decisions).includes('deny')
                      ? 'Denied'
                      : 'Accepted',
                )
              }
            />
          ) : (
            <ElicitationForm
              request={selected}
              busy={busy}
              onAnswer={(body) => answer(selected, body, body.action === 'accept' ? 'Answered' : 'Declined')}
            />
          )}
        </section>
      )}
    </div>
  );
}
