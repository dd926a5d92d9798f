/**
 * The configuration's face: one validated Config from environment variables, read through one table
 * of settings (src/config/: a file of rows per concern, setting.ts says what a row holds).
 * docs/configuration.md lists the same table (a test keeps the two in step).
 */
export { loadConfig, type Config } from './config/load.ts';
export { ROLE_SETTING_SUFFIXES } from './config/model-roles.ts';
export { SECRET_SETTING, type Setting } from './config/setting.ts';
export { SETTINGS } from './config/table.ts';

/** Defined where the folders that throw or use them can reach them without importing config.ts. */
export { ConfigError } from './config-error.ts';
export { SCRIPTED_BASE_URL } from './llm/scripted-url.ts';
export type { ModelSettings, RoleModelConfig } from './llm/settings.ts';
