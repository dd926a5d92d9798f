/**
 * Run options an A2A client may pass in request or message metadata (request metadata wins):
 * `{ "mode": "auto" | "direct" | "orchestrate" | "council", "model": "<id>", "models": { "<role>": "<id>" },
 *    "citations": "none" | "numbered" }`.
 */
import type { SendMessageRequest } from '@a2a-js/sdk';
import {
  CITATION_STYLES,
  type CitationStyle,
  readModelChoice,
  type RequestModels,
  RUN_MODES,
  type RunMode,
} from '../../graph/contract.ts';

function rawMode(request: SendMessageRequest): unknown {
  return request.metadata?.mode ?? request.message?.metadata?.mode;
}

/** The metadata object that carries the model choice, and its name for error messages. */
function modelSource(request: SendMessageRequest): { raw: Record<string, unknown>; where: string } | undefined {
  const has = (m: Record<string, unknown> | undefined) =>
    m !== undefined && (m.model !== undefined || m.models !== undefined);
  if (has(request.metadata)) return { raw: request.metadata!, where: 'metadata' };
  if (has(request.message?.metadata)) return { raw: request.message!.metadata!, where: 'message.metadata' };
  return undefined;
}

function rawCitations(request: SendMessageRequest): unknown {
  return request.metadata?.citations ?? request.message?.metadata?.citations;
}

/** The requested citation style, or undefined. Call modeError first: this trusts the value. */
export function runCitationsOf(request: SendMessageRequest): CitationStyle | undefined {
  return rawCitations(request) as CitationStyle | undefined;
}

/** The requested mode, or undefined when none was given. Call modeError first: this trusts the value. */
export function runModeOf(request: SendMessageRequest): RunMode | undefined {
  const mode = rawMode(request);
  return mode === undefined ? undefined : (mode as RunMode);
}

/** The requested per-role models, or undefined. Call modeError first: a bad choice reads as none. */
export function runModelsOf(request: SendMessageRequest): RequestModels | undefined {
  const source = modelSource(request);
  if (!source) return undefined;
  const read = readModelChoice({ model: source.raw.model, models: source.raw.models });
  return read.ok ? read.models : undefined;
}

/** A message saying what is wrong with the requested mode or models, or undefined when they are fine. */
export function modeError(request: SendMessageRequest): string | undefined {
  const mode = rawMode(request);
  if (mode !== undefined && !(typeof mode === 'string' && (RUN_MODES as readonly string[]).includes(mode))) {
    return `metadata.mode must be one of ${RUN_MODES.join(', ')}; got ${JSON.stringify(mode)}`;
  }
  const citations = rawCitations(request);
  if (citations !== undefined && !(CITATION_STYLES as readonly unknown[]).includes(citations)) {
    return `metadata.citations must be one of ${CITATION_STYLES.join(', ')}; got ${JSON.stringify(citations)}`;
  }
  const source = modelSource(request);
  if (!source) return undefined;
  const read = readModelChoice({ model: source.raw.model, models: source.raw.models }, source.where);
  return read.ok ? undefined : read.message;
}
