/** What Parley tells ACP clients about itself at initialize: name and version from package.json. */
import type { Implementation } from '@agentclientprotocol/sdk';
import { PACKAGE_JSON } from '../../package-root.ts';

export function agentInfo(): Implementation {
  return { name: PACKAGE_JSON.name, title: 'Parley', version: PACKAGE_JSON.version };
}
