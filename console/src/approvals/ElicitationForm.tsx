/** An elicitation (an MCP server or A2A peer asking the human): its message and a form from its requested schema. */
import { useState } from 'react';
import type { ApprovalRequest } from '../api/types.ts';
import { fieldsOf, validate, valueOf } from './schema-form.ts';
import { SchemaForm } from './SchemaForm.tsx';

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
    const content: Record<string, unknown> = {};
    const found: string[] = [];
    for (const field of fields) {
      const read = valueOf(field, texts[field.name] ?? '');
      if (read.error) found.push(read.error);
      else if (read.value !== undefined && read.value !== '') content[field.name] = read.value;
    }
    found.push(...validate(request.requestedSchema, content));
    setProblems(found);
    if (found.length === 0) onAnswer({ action: 'accept', content });
  };
  return (
    <div className="elicitation">
      <p>
        <strong>{request.source}</strong> asks: {request.message}
      </p>
      <SchemaForm fields={fields} texts={texts} onChange={(name, text) => setTexts((t) => ({ ...t, [name]: text }))} />
      {problems.length > 0 && (
        <ul className="error" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
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
