/** Points every role that uses the built-in scripted model at the address it actually listens on. */
import type { ModelSettings } from './settings.ts';

/** Placeholder base URL meaning "the in-process scripted model"; the server swaps in its real address. */
export const SCRIPTED_BASE_URL = 'scripted://local';

export function pointAtScriptedModel(model: ModelSettings, scriptedUrl: string): ModelSettings {
  const baseUrl = `${scriptedUrl.replace(/\/$/, '')}/v1`;
  const roles = Object.fromEntries(
    Object.entries(model.roles).map(([role, settings]) => [
      role,
      settings.baseUrl === SCRIPTED_BASE_URL ? { ...settings, baseUrl } : settings,
    ]),
  ) as ModelSettings['roles'];
  return { ...model, roles };
}
