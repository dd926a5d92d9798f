/**
 * Provider profiles: the scripted model can behave like OpenAI-compatible endpoints that are not
 * OpenAI (docs/scripted-model.md, "Provider profiles"). Each profile is one documented quirk; a
 * server runs with a set of them (SCRIPTED_PROFILE=a,b or `profile` in the options), and presets
 * name the combinations a real provider shows.
 */
import type { CompletionRequest } from './completion-request.ts';

export const PROFILES = [
  'openai',
  'response-format-ignored',
  'json-schema-rejected',
  'strict-ignored',
  'max-tokens-rejected',
  'temperature-rejected',
  'reasoning',
  'no-stream-usage',
  'system-hoisted',
  'tools-rejected',
  'stream-options-rejected',
  'parallel-tool-calls-rejected',
  'images-rejected',
] as const;
export type Profile = (typeof PROFILES)[number];

/** Combinations that reproduce one provider's documented behaviour (see docs/models.md for sources). */
export const PROFILE_PRESETS: Record<string, Profile[]> = {
  // Anthropic's OpenAI SDK compatibility: response_format and tool `strict` ignored, system messages hoisted into one.
  'anthropic-compat': ['response-format-ignored', 'strict-ignored', 'system-hoisted'],
  // OpenAI reasoning models (o-series): max_completion_tokens only, no temperature, reasoning tokens in usage.
  'o-series': ['max-tokens-rejected', 'temperature-rejected', 'reasoning'],
  // A small local model behind a basic server: no json_schema, no tools.
  'small-local': ['json-schema-rejected', 'tools-rejected', 'no-stream-usage'],
};

export type ProfileSet = ReadonlySet<Profile>;

const isProfile = (v: string): v is Profile => (PROFILES as readonly string[]).includes(v);

/** Parses "a,b" or a list (profile names and preset names); throws a readable message on an unknown name. */
export function parseProfiles(value: string | readonly string[] | undefined): ProfileSet {
  const names = (typeof value === 'string' ? value.split(',') : (value ?? [])).map((s) => s.trim()).filter(Boolean);
  const set = new Set<Profile>();
  for (const name of names) {
    const preset = PROFILE_PRESETS[name];
    if (preset) preset.forEach((p) => set.add(p));
    else if (isProfile(name)) set.add(name);
    else
      throw new Error(
        `unknown scripted profile "${name}": allowed are ${[...PROFILES, ...Object.keys(PROFILE_PRESETS)].join(', ')}`,
      );
  }
  set.delete('openai');
  return set;
}

export function isProfileList(value: string): boolean {
  try {
    parseProfiles(value);
    return true;
  } catch {
    return false;
  }
}

export interface Rejection {
  message: string;
  param: string | null;
  code: string;
}

const hasImage = (body: CompletionRequest) =>
  body.messages.some(
    (m) =>
      Array.isArray(m.content) &&
      m.content.some((p) => p && typeof p === 'object' && (p as { type?: unknown }).type === 'image_url'),
  );

/** The 400 a profile answers this request with, worded like the providers that reject it. */
export function rejectionOf(
  body: CompletionRequest & Record<string, unknown>,
  profiles: ProfileSet,
): Rejection | undefined {
  if (profiles.has('max-tokens-rejected') && body.max_tokens !== undefined) {
    return {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      param: 'max_tokens',
      code: 'unsupported_parameter',
    };
  }
  if (profiles.has('temperature-rejected') && body.temperature !== undefined) {
    return {
      message: "Unsupported parameter: 'temperature' is not supported with this model.",
      param: 'temperature',
      code: 'unsupported_parameter',
    };
  }
  if (profiles.has('json-schema-rejected') && body.response_format?.type === 'json_schema') {
    return {
      message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      param: 'response_format',
      code: 'unsupported_parameter',
    };
  }
  if (profiles.has('tools-rejected') && (body.tools?.length ?? 0) > 0) {
    return {
      message: `${body.model ?? 'this model'} does not support tools`,
      param: 'tools',
      code: 'unsupported_parameter',
    };
  }
  if (profiles.has('stream-options-rejected') && body.stream_options !== undefined) {
    return {
      message: 'Unrecognized request argument supplied: stream_options',
      param: 'stream_options',
      code: 'unsupported_parameter',
    };
  }
  if (profiles.has('parallel-tool-calls-rejected') && body.parallel_tool_calls !== undefined) {
    return {
      message: 'Unrecognized request argument supplied: parallel_tool_calls',
      param: 'parallel_tool_calls',
      code: 'unsupported_parameter',
    };
  }
  if (profiles.has('images-rejected') && hasImage(body)) {
    return { message: 'This model does not support image input.', param: 'messages', code: 'unsupported_content' };
  }
  return undefined;
}

/** system-hoisted: every system (and developer) message merged into one at the start, as Anthropic's endpoint does. */
export function hoistSystem<M extends { role: string; content?: unknown }>(
  messages: M[],
  text: (content: unknown) => string,
): M[] {
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer');
  if (system.length === 0) return messages;
  const merged = { role: 'system', content: system.map((m) => text(m.content)).join('\n\n') } as M;
  return [merged, ...messages.filter((m) => m.role !== 'system' && m.role !== 'developer')];
}

/** response-format-ignored: the JSON a model was asked for, said in a sentence (or in a fence mid-reply). */
export function inProse(name: string, json: string, fenced: boolean): string {
  if (fenced)
    return `Sure. Here is the ${name || 'result'} you asked for:\n\n\`\`\`json\n${json}\n\`\`\`\n\nLet me know if you want any changes.`;
  return `Sure, the ${name || 'result'} is ${json} — I hope that helps.`;
}

/** strict-ignored: tool arguments with a field the tool's schema does not have. */
export function withExtraField(args: string): string {
  try {
    const value = JSON.parse(args) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value))
      return JSON.stringify({ ...value, note: 'extra field the schema does not name' });
  } catch {
    // not JSON: left as is
  }
  return args;
}

/** reasoning: the thinking a reasoning model reports beside its answer (with JSON-looking text, to prove it is kept out). */
export const reasoningText = (answer: string): string =>
  `The user wants an answer. A first draft was {"draft": true, "route": "unsure"}; checking it against the request before answering (${answer.length} characters).`;
