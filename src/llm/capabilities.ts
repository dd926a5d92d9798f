/**
 * What an endpoint and model can do, per model role: the structured-output strategy, tools,
 * parallel tool calls, usage in streams, images, which max-tokens field and whether temperature is
 * accepted. Resolved from a provider preset (named, or detected from the base URL), then the
 * role's overrides; run-time learning (learning.ts) adjusts it when the provider rejects a parameter.
 */
import { z } from 'zod';

export const STRUCTURED_STRATEGIES = ['json_schema', 'tool', 'prompt'] as const;
export type StructuredStrategy = (typeof STRUCTURED_STRATEGIES)[number];

export interface Capabilities {
  /** How structured output is asked for: response_format json_schema, a forced tool call, or the schema in the prompt. */
  structured: StructuredStrategy;
  /** Function calling works (specialists' tools; the `tool` strategy). */
  tools: boolean;
  /** `parallel_tool_calls: true` is sent with tools (the endpoint knows the parameter and may return several calls). */
  parallelToolCalls: boolean;
  /** Streams report usage when asked with `stream_options.include_usage` (the option is sent only then). */
  streamUsage: boolean;
  /** Image content parts are accepted. */
  images: boolean;
  /** The name max output tokens goes by. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** `temperature` is accepted. */
  temperature: boolean;
}

const bool = z
  .enum(['true', 'false', 'yes', 'no', 'on', 'off', '1', '0'])
  .transform((v) => ['true', 'yes', 'on', '1'].includes(v));

/** The keys of PARLEY_MODEL_CAPABILITIES (snake_case, as in the docs) and their values. */
const OVERRIDE_KEYS = {
  structured: ['structured', z.enum(STRUCTURED_STRATEGIES)],
  tools: ['tools', bool],
  parallel_tool_calls: ['parallelToolCalls', bool],
  stream_usage: ['streamUsage', bool],
  images: ['images', bool],
  max_tokens_field: ['maxTokensField', z.enum(['max_completion_tokens', 'max_tokens'])],
  temperature: ['temperature', bool],
} as const satisfies Record<string, readonly [keyof Capabilities, z.ZodType]>;

/** `tools=no,stream_usage=no,max_tokens_field=max_tokens`: a comma list of key=value overrides. */
export const capabilityOverrides = z.string().transform((text, ctx): Partial<Capabilities> => {
  const out: Record<string, unknown> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [key = '', value = ''] = item.split('=').map((s) => s.trim());
    const spec = OVERRIDE_KEYS[key as keyof typeof OVERRIDE_KEYS];
    if (!spec) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown capability "${key}" (known: ${Object.keys(OVERRIDE_KEYS).join(', ')})`,
      });
      return z.NEVER;
    }
    const parsed = spec[1].safeParse(value.toLowerCase());
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: `capability ${key}=${JSON.stringify(value)} is not allowed` });
      return z.NEVER;
    }
    out[spec[0]] = parsed.data;
  }
  return out as Partial<Capabilities>;
});

/** Capabilities as the docs and `parley doctor` spell them. */
export function describeCapabilities(c: Capabilities): string {
  const yn = (b: boolean) => (b ? 'yes' : 'no');
  return `structured=${c.structured} tools=${yn(c.tools)} parallel_tool_calls=${yn(c.parallelToolCalls)} stream_usage=${yn(c.streamUsage)} images=${yn(c.images)} max_tokens_field=${c.maxTokensField} temperature=${yn(c.temperature)}`;
}
