/** Run options an A2A client may pass in request or message metadata: `{ "mode": "auto" | "direct" | "orchestrate" | "council" }`. */
import type { SendMessageRequest } from '@a2a-js/sdk';
import { RUN_MODES, type RunMode } from '../graph/run-request.ts';

function rawMode(request: SendMessageRequest): unknown {
  return request.metadata?.mode ?? request.message?.metadata?.mode;
}

/** The requested mode, or undefined when none was given. Call modeError first: this trusts the value. */
export function runModeOf(request: SendMessageRequest): RunMode | undefined {
  const mode = rawMode(request);
  return mode === undefined ? undefined : (mode as RunMode);
}

/** A message saying what is wrong with the requested mode, or undefined when it is fine. */
export function modeError(request: SendMessageRequest): string | undefined {
  const mode = rawMode(request);
  if (mode === undefined || (typeof mode === 'string' && (RUN_MODES as readonly string[]).includes(mode))) return undefined;
  return `metadata.mode must be one of ${RUN_MODES.join(', ')}; got ${JSON.stringify(mode)}`;
}
