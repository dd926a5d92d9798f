/** Parley's version, from package.json. Its own module so `parley --version` loads nothing else. */
import { PACKAGE_JSON } from './package-root.ts';

export const VERSION: string = PACKAGE_JSON.version;
