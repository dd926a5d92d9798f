/** Inputs for the fields of a JSON schema, each with its label; the parent holds the values. */
import { useId } from 'react';
import type { Field } from './schema-form.ts';

export function SchemaForm({
  fields,
  texts,
  onChange,
}: {
  fields: Field[];
  texts: Record<string, string>;
  onChange: (name: string, text: string) => void;
}) {
  const prefix = useId();
  return (
    <div className="schema-form">
      {fields.map((field) => {
        const id = `${prefix}-${field.name}`;
        const text = texts[field.name] ?? '';
        const label = (
          <label htmlFor={id}>
            {field.label}
            {field.required && <span aria-label="required"> *</span>}
          </label>
        );
        const hint = field.description && <small id={`${id}-hint`}>{field.description}</small>;
        const described = field.description ? { 'aria-describedby': `${id}-hint` } : {};
        if (field.kind === 'boolean')
          return (
            <div key={field.name} className="field field-check">
              <input
                id={id}
                type="checkbox"
                checked={text === 'true'}
                onChange={(e) => onChange(field.name, String(e.target.checked))}
                {...described}
              />
              {label}
              {hint}
            </div>
          );
        return (
          <div key={field.name} className="field">
            {label}
            {field.kind === 'enum' ? (
              <select id={id} value={text} onChange={(e) => onChange(field.name, e.target.value)} {...described}>
                {!field.required && <option value="">—</option>}
                {field.options?.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            ) : field.kind === 'textarea' || field.kind === 'json' ? (
              <textarea
                id={id}
                value={text}
                rows={field.kind === 'json' ? 4 : 6}
                onChange={(e) => onChange(field.name, e.target.value)}
                required={field.required}
                {...described}
              />
            ) : (
              <input
                id={id}
                type={field.kind === 'text' ? 'text' : 'number'}
                step={field.kind === 'integer' ? 1 : 'any'}
                value={text}
                onChange={(e) => onChange(field.name, e.target.value)}
                required={field.required}
                {...described}
              />
            )}
            {hint}
          </div>
        );
      })}
    </div>
  );
}

/** What is wrong with the form, announced to screen readers. */
export function FormProblems({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="error" role="alert">
      {problems.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}
