/**
 * "Fork from here": the query, the plan as editable steps (add, remove, edit the text, the specialist,
 * what it depends on, its model), the outputs of steps that had finished, and models per role. Sends
 * only what changed; the server validates (a plan like any plan) and its message shows here, in place.
 */
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { FORK_ROLES, type RunCheckpoint, type SpecialistRecord } from '../api/types.ts';
import { navigate } from '../shell/route.ts';
import { useLoad } from '../shell/useLoad.ts';
import { draftOf, editOf, freshStepId, type DraftStep, type ForkDraft } from './fork-edit.ts';

export function ForkForm({
  runId,
  query,
  checkpoint,
  onCancel,
}: {
  runId: string;
  query: string;
  checkpoint: RunCheckpoint;
  onCancel(): void;
}) {
  const [draft, setDraftState] = useState<ForkDraft>(() => draftOf(checkpoint, query));
  const [error, setError] = useState<string | undefined>(undefined);
  // The server's message is about what was sent: an edit since makes it stale.
  const setDraft = (change: (d: ForkDraft) => ForkDraft) => {
    setDraftState(change);
    setError(undefined);
  };
  const [sending, setSending] = useState(false);
  const specialists = useLoad<{ specialists: SpecialistRecord[] }>('/api/specialists?available=true');
  const choices = [
    ...new Set([...(specialists.data?.specialists.map((s) => s.id) ?? []), ...draft.steps.map((s) => s.specialist)]),
  ].sort();

  const setStep = (index: number, change: Partial<DraftStep>) =>
    setDraft((d) => ({ ...d, steps: d.steps.map((s, i) => (i === index ? { ...s, ...change } : s)) }));
  const removeStep = (index: number) =>
    setDraft((d) => {
      const gone = d.steps[index]!.id;
      return {
        ...d,
        steps: d.steps
          .filter((_, i) => i !== index)
          .map((s) => ({ ...s, dependsOn: s.dependsOn.filter((x) => x !== gone) })),
      };
    });
  const addStep = () =>
    setDraft((d) => ({
      ...d,
      steps: [
        ...d.steps,
        {
          id: freshStepId(d.steps),
          specialist: d.steps.at(-1)?.specialist ?? choices[0] ?? '',
          objective: '',
          dependsOn: [],
          model: '',
        },
      ],
    }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSending(true);
    setError(undefined);
    const edit = editOf(draft, checkpoint, query);
    try {
      const started = await api<{ runId: string }>(`/api/runs/${encodeURIComponent(runId)}/fork`, {
        body: { checkpoint: checkpoint.id, ...(edit ? { edit } : {}) },
      });
      navigate({ view: 'run', runId: started.runId });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setSending(false);
    }
  };

  const succeeded = checkpoint.steps.filter((s) => s.status === 'succeeded');
  return (
    <form className="fork-form" aria-label="Fork" onSubmit={submit}>
      <h4>Fork from {checkpoint.label}</h4>
      <label className="field">
        Query
        <textarea rows={2} value={draft.query} onChange={(e) => setDraft((d) => ({ ...d, query: e.target.value }))} />
      </label>

      {checkpoint.plan && (
        <fieldset className="plan-edit">
          <legend>Plan</legend>
          <p className="muted">
            A finished step is carried (not run again) while a step of the plan keeps its specialist and objective.
            {' {{id.result}} '}in an objective reads a dependency's output.
          </p>
          {draft.steps.map((s, i) => (
            <div className="plan-step" key={i} data-step-index={i} role="group" aria-label={`Step ${i + 1}`}>
              <label>
                Id
                <input value={s.id} size={6} onChange={(e) => setStep(i, { id: e.target.value })} />
              </label>
              <label>
                Specialist
                <select value={s.specialist} onChange={(e) => setStep(i, { specialist: e.target.value })}>
                  {choices.map((id) => (
                    <option key={id} value={id}>
                      {id}
                    </option>
                  ))}
                </select>
              </label>
              <label className="grow">
                Objective
                <textarea rows={2} value={s.objective} onChange={(e) => setStep(i, { objective: e.target.value })} />
              </label>
              <fieldset className="depends">
                <legend>Depends on</legend>
                {draft.steps
                  .filter((o) => o.id !== s.id)
                  .map((o) => (
                    <label key={o.id} className="field-check">
                      <input
                        type="checkbox"
                        checked={s.dependsOn.includes(o.id)}
                        onChange={(e) =>
                          setStep(i, {
                            dependsOn: e.target.checked
                              ? [...s.dependsOn, o.id]
                              : s.dependsOn.filter((x) => x !== o.id),
                          })
                        }
                      />
                      {o.id}
                    </label>
                  ))}
              </fieldset>
              <label>
                Model
                <input
                  value={s.model}
                  size={10}
                  placeholder={s.base?.model ?? 'as planned'}
                  onChange={(e) => setStep(i, { model: e.target.value })}
                />
              </label>
              <button type="button" className="secondary" onClick={() => removeStep(i)}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" className="secondary" onClick={addStep}>
            Add step
          </button>
        </fieldset>
      )}

      {succeeded.length > 0 && (
        <fieldset>
          <legend>Outputs of finished steps (carried as written here)</legend>
          {succeeded.map((s) => (
            <label className="field" key={s.stepId}>
              Output of {s.stepId}
              <textarea
                rows={2}
                value={draft.outputs[s.stepId] ?? ''}
                onChange={(e) => setDraft((d) => ({ ...d, outputs: { ...d.outputs, [s.stepId]: e.target.value } }))}
              />
            </label>
          ))}
        </fieldset>
      )}

      <fieldset className="role-models">
        <legend>Models per role (empty: as the run chose)</legend>
        {FORK_ROLES.map((role) => (
          <label key={role}>
            {role}
            <input
              value={draft.models[role] ?? ''}
              size={12}
              onChange={(e) => setDraft((d) => ({ ...d, models: { ...d.models, [role]: e.target.value } }))}
            />
          </label>
        ))}
      </fieldset>

      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={sending}>
          {sending ? 'Starting…' : 'Start the fork'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
