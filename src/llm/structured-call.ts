/**
 * The ModelClient's structured(): the value asked for in the role's strategy (structured.ts), read
 * from where that strategy puts it and validated with zod; an invalid or refused reply is sent back
 * once with what was wrong (the repair turn), and a second failure is an `invalid_output` ModelError
 * carrying both calls' usage.
 */
import { tracingOff, withSpan } from '../telemetry.ts';
import { ModelError } from './errors.ts';
import type { Capabilities } from './capabilities.ts';
import { jsonSchemaOf, repairMessage, structuredRequest, structuredText, validateStructured } from './structured.ts';
import { reasoningOf, type CallKit, type Completion, type CreateParams, type Target } from './call-kit.ts';
import type { ChatMessage, ModelUsage, StructuredOptions, StructuredResult } from './types.ts';

function sumUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  const reasoning = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return {
    model: b.model,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
    costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd,
  };
}

/** A structured attempt's text (where its strategy puts the answer), and whether it is a valid value. */
const structuredCheck = <T>(
  completion: Completion,
  usage: ModelUsage,
  _t: Target,
  opts: StructuredOptions<T>,
  caps: Capabilities,
) => {
  const message = completion.choices[0]?.message;
  const text = structuredText(caps.structured, opts.schemaName, message);
  const check = message?.refusal
    ? ({ ok: false, error: `a refusal (${message.refusal})` } as const)
    : validateStructured(text, opts.schema);
  return { text, check, usage, reasoning: message ? reasoningOf(message) : undefined };
};

export async function structuredCall<T>(kit: CallKit, opts: StructuredOptions<T>): Promise<StructuredResult<T>> {
  const t = kit.target(opts);
  const schema = jsonSchemaOf(opts.schema);
  const ask = (messages: ChatMessage[], repair: boolean) => {
    // The strategy is read per attempt: a json_schema rejected a moment ago is asked again with the next one.
    const build = (caps: Capabilities): CreateParams => {
      const request = structuredRequest(caps.structured, opts.schemaName, schema, messages);
      return { ...kit.baseParams(t, opts, request.messages, caps), ...request.params };
    };
    if (tracingOff()) return kit.complete(t, opts, build, undefined, structuredCheck<T>);
    return withSpan(
      `chat ${t.model}`,
      kit.spanAttrs(t, opts, { 'parley.schema': opts.schemaName, 'parley.repair': repair ? 'true' : undefined }),
      (span) => kit.complete(t, opts, build, span, structuredCheck<T>),
    );
  };

  const first = await ask(opts.messages, false);
  if (first.check.ok)
    return { value: first.check.value, usage: first.usage, ...(first.reasoning ? { reasoning: first.reasoning } : {}) };
  kit.logger.warn('structured output invalid, asking once to repair', {
    role: t.role,
    model: t.model,
    schema: opts.schemaName,
    error: first.check.error.slice(0, 300),
  });
  const repaired = await ask(
    [
      ...opts.messages,
      { role: 'assistant', content: first.text },
      { role: 'user', content: repairMessage(opts.schemaName, schema, first.check.error) },
    ],
    true,
  );
  const reasoning = [first.reasoning, repaired.reasoning].filter(Boolean).join('\n');
  if (repaired.check.ok)
    return {
      value: repaired.check.value,
      usage: sumUsage(first.usage, repaired.usage),
      ...(reasoning ? { reasoning } : {}),
    };
  throw new ModelError(
    'invalid_output',
    `The ${t.role} model (${t.model}) did not return a valid "${opts.schemaName}" after one repair attempt: it is ${repaired.check.error}`,
    {
      role: t.role,
      model: t.model,
      raw: repaired.text,
      issues: repaired.check.error,
      usage: sumUsage(first.usage, repaired.usage),
    },
  );
}
