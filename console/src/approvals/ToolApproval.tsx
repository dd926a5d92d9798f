/**
 * A tool approval: each call with its tool, arguments, why it needs approval and what it would do;
 * accept, deny (with feedback for the agent), or edit the arguments in a form built from the tool's
 * input schema, checked before it is sent.
 */
import { useState } from 'react';
import type { ApprovalRequest, PendingToolCall } from '../api/types.ts';
import { fieldsOf, readForm, textOf } from './schema-form.ts';
import { FormProblems, SchemaForm } from './SchemaForm.tsx';

type ToolRequest = Extract<ApprovalRequest, { kind: 'tool' }>;
export type ToolAnswer = {
  decisions: Record<string, 'accept' | 'deny' | { edit: Record<string, unknown> }>;
  feedback?: string;
};

const argsOf = (call: PendingToolCall): Record<string, unknown> =>
  typeof call.args === 'object' && call.args !== null && !Array.isArray(call.args)
    ? (call.args as Record<string, unknown>)
    : {};

function Preview({ call }: { call: PendingToolCall }) {
  if (!call.preview) return null;
  if (call.preview.type === 'command')
    return (
      <pre className="preview" aria-label="Command">
        $ {call.preview.command}
      </pre>
    );
  return (
    <div className="preview" aria-label={`Change to ${call.preview.path}`}>
      <div className="muted">{call.preview.path}</div>
      {call.preview.oldText !== null && <pre className="diff-old">{call.preview.oldText}</pre>}
      <pre className="diff-new">{call.preview.newText}</pre>
    </div>
  );
}

function EditForm({
  call,
  onSave,
  onCancel,
}: {
  call: PendingToolCall;
  onSave: (args: Record<string, unknown>) => void;
  onCancel: () => void;
}) {
  const args = argsOf(call);
  const fields = fieldsOf(call.inputSchema, args);
  const [texts, setTexts] = useState(() => Object.fromEntries(fields.map((f) => [f.name, textOf(f, args[f.name])])));
  const [problems, setProblems] = useState<string[]>([]);
  const save = () => {
    const { value, problems } = readForm(call.inputSchema, fields, texts);
    setProblems(problems);
    if (problems.length === 0) onSave(value);
  };
  return (
    <div className="edit-form" aria-label={`Edit the arguments of ${call.tool}`}>
      <SchemaForm fields={fields} texts={texts} onChange={(name, text) => setTexts((t) => ({ ...t, [name]: text }))} />
      <FormProblems problems={problems} />
      <button type="button" onClick={save}>
        Run with these arguments
      </button>{' '}
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel edit
      </button>
    </div>
  );
}

export function ToolApproval({
  request,
  onAnswer,
  busy,
}: {
  request: ToolRequest;
  onAnswer: (answer: ToolAnswer) => void;
  busy: boolean;
}) {
  const [feedback, setFeedback] = useState('');
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const all = (d: 'accept' | 'deny') => Object.fromEntries(request.toolCalls.map((c) => [c.toolCallId, d]));
  return (
    <div className="tool-approval">
      {request.toolCalls.map((call) => (
        <article key={call.toolCallId} className="tool-call">
          <h3>{call.annotations?.title ?? call.tool}</h3>
          <p>
            <code>{call.tool}</code> needs approval: <em>{call.reason}</em>
            {call.annotations?.destructiveHint && <span className="tag">destructive</span>}
          </p>
          <Preview call={call} />
          <details open={!call.preview}>
            <summary>Arguments</summary>
            <pre>{JSON.stringify(call.args, null, 2)}</pre>
          </details>
          {editing === call.toolCallId ? (
            <EditForm
              call={call}
              onCancel={() => setEditing(undefined)}
              onSave={(args) =>
                onAnswer({
                  decisions: { ...all('accept'), [call.toolCallId]: { edit: args } },
                  ...(feedback ? { feedback } : {}),
                })
              }
            />
          ) : (
            <button type="button" className="secondary" disabled={busy} onClick={() => setEditing(call.toolCallId)}>
              Edit arguments
            </button>
          )}
        </article>
      ))}
      <label htmlFor={`feedback-${request.id}`}>Feedback for the agent (sent with a denial)</label>
      <textarea id={`feedback-${request.id}`} rows={2} value={feedback} onChange={(e) => setFeedback(e.target.value)} />
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => onAnswer({ decisions: all('accept') })}>
          Accept <kbd>a</kbd>
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => onAnswer({ decisions: all('deny'), ...(feedback ? { feedback } : {}) })}
        >
          Deny <kbd>d</kbd>
        </button>
      </div>
    </div>
  );
}
