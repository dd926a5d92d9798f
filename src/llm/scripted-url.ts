/** Points every role that uses the built-in scripted model at the address it actually listens on. */
import { SCRIPTED_BASE_URL, type Config } from '../config.ts';

export function pointAtScriptedModel(model: Config['model'], scriptedUrl: string): Config['model'] {
  const baseUrl = `${scriptedUrl.replace(/\/$/, '')}/v1`;
  const roles = Object.fromEntries(
    Object.entries(model.roles).map(([role, settings]) => [role, settings.baseUrl === SCRIPTED_BASE_URL ? { ...settings, baseUrl } : settings]),
  ) as Config['model']['roles'];
  return { ...model, roles };
}
