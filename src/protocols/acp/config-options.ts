/**
 * ACP session config options (`configOptions`, `session/set_config_option`): the run mode (category
 * `mode`, the same value `session/set_mode` sets) and, when models are offered, the model of every role
 * (category `model`: "default" keeps the configured model of each role; a name runs every role on it,
 * as `_meta.parley.model` does at session/new). Both are plain selects over fixed lists.
 */
import { RequestError, type SessionConfigOption } from '@agentclientprotocol/sdk';
import { readModelChoice } from '../../graph/contract.ts';
import { ACP_MODES, isRunMode, type AcpSession } from './session.ts';

/** The models the `model` option offers: each configured role's model, once, sorted. */
export const modelChoices = (roles: Record<string, { model: string }>): string[] =>
  [...new Set(Object.values(roles).map((r) => r.model))].sort();

/** The model option's value for "each role keeps its configured model". */
export const DEFAULT_MODEL = 'default';

export function configOptions(session: AcpSession, models: readonly string[]): SessionConfigOption[] {
  const mode: SessionConfigOption = {
    id: 'mode',
    name: 'Mode',
    description: 'How Parley answers the next prompts.',
    category: 'mode',
    type: 'select',
    currentValue: session.mode,
    options: ACP_MODES.map((m) => ({ value: m.id, name: m.name, description: m.description ?? null })),
  };
  if (models.length === 0) return [mode];
  const model: SessionConfigOption = {
    id: 'model',
    name: 'Model',
    description: 'The model every role of the next runs uses.',
    category: 'model',
    type: 'select',
    currentValue: session.model ?? DEFAULT_MODEL,
    options: [
      {
        value: DEFAULT_MODEL,
        name: 'Configured per role',
        description: 'Each role uses the model Parley is set up with.',
      },
      ...models.map((m) => ({ value: m, name: m })),
    ],
  };
  return [mode, model];
}

/**
 * Applies `session/set_config_option` to the session; a config or a value it does not offer is invalid
 * params naming it, and changes nothing. Returns whether the mode changed (to store it).
 */
export function setConfigOption(
  session: AcpSession,
  change: { configId: string; value: unknown },
  models: readonly string[],
): { modeChanged: boolean } {
  const { configId, value } = change;
  if (configId === 'mode') {
    if (typeof value !== 'string' || !isRunMode(value))
      throw RequestError.invalidParams(
        { configId, value },
        `mode must be one of ${ACP_MODES.map((m) => m.id).join(', ')}`,
      );
    session.mode = value;
    return { modeChanged: true };
  }
  if (configId === 'model' && models.length > 0) {
    if (typeof value !== 'string' || (value !== DEFAULT_MODEL && !models.includes(value)))
      throw RequestError.invalidParams(
        { configId, value },
        `model must be one of ${[DEFAULT_MODEL, ...models].join(', ')}`,
      );
    if (value === DEFAULT_MODEL) {
      delete session.model;
      delete session.models;
    } else {
      const chosen = readModelChoice({ model: value }, 'value');
      if (!chosen.ok) throw RequestError.invalidParams({ configId, value }, chosen.message);
      session.model = value;
      if (chosen.models) session.models = chosen.models;
    }
    return { modeChanged: false };
  }
  throw RequestError.invalidParams({ configId }, `unknown config option "${configId}"`);
}
