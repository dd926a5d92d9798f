/** An elicitation (an MCP server or A2A peer asking the human): its message and a form from its requested schema. */
import { useState } from 'react';
import type { ApprovalRequest } from '../api/types.ts';
import { fieldsOf, readForm } from './schema-form.ts';
import { FormProblems, SchemaForm } from './SchemaForm.tsx';

type ElicitationRequest = Extract<ApprovalRequest, { kind: 'elicitation' }>;
export type ElicitationAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

export function ElicitationForm({
  request,
  onAnswer,
  busy,
}: {
  request: ElicitationRequest;
  onAnswer: (answer: ElicitationAnswer) => void;
  busy: boolean;
}) {
  const fields = fieldsOf(request.requestedSchema, {});
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<string[]>([]);
  const accept = () => {
    const { value, problems } = readForm(request.requestedSchema, fields, texts);
    setProblems(problems);
    if (problems.length === 0) onAnswer({ action: 'accept', content: value });
  };
  return (
    <div className="elicitation">
      <p>
        <strong>{request.source}</strong> asks: {request.message}
      </p>
      <SchemaForm fields={fields} texts={texts} onChange={(name, text) => setTexts((t) => ({ ...t, [name]: text }))} />
      <FormProblems problems={problems} />
      <div className="actions">
        <button type="button" disabled={busy} onClick={accept}>
          Send
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => onAnswer({ action: 'decline' })}>
          Decline
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => onAnswer({ action: 'cancel' })}>
          Cancel
        </button>
      </div>
    </div>
  );
}
