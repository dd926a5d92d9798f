/** Parley's version, from package.json (one level above src/ and dist/ alike). Its own module so `parley --version` loads nothing else. */
import { readFileSync } from 'node:fs';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
