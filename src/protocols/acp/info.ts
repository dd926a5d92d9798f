/** What Parley tells ACP clients about itself at initialize: name and version from package.json. */
import { readFileSync } from 'node:fs';
import type { Implementation } from '@agentclientprotocol/sdk';

let cached: Implementation | undefined;

export function agentInfo(): Implementation {
  if (!cached) {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    cached = { name: pkg.name, title: 'Parley', version: pkg.version };
  }
  return cached;
}
