/**
 * A setting with a wrong value: start-up stops with a message naming it. Its own file (importing
 * nothing) so the folders whose settings config.ts validates can throw it without importing config.ts.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
