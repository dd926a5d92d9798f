/**
 * The settings of model access (docs/configuration.md, "Model access"). The `role` rows are every
 * model role's defaults; PARLEY_MODEL_<ROLE><suffix> overrides one for one role (model-roles.ts).
 */
import { z } from 'zod';
import { capabilityOverrides } from '../llm/capabilities.ts';
import { PRESET_IDS } from '../llm/presets.ts';
import { isProfileList } from '../scripted-model/profiles.ts';
import { headers, list, nonNegativeInt, positiveInt, provider, structured, temperature, text, url } from './parsers.ts';
import { homeSetting, roleSetting, type Setting } from './setting.ts';

export const MODEL_SETTINGS = [
  roleSetting({
    env: 'PARLEY_MODEL_BASE_URL',
    role: 'baseUrl',
    perRole: 'base URL',
    schema: url,
    description:
      'OpenAI-compatible base URL (e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1 for Ollama). Falls back to OPENAI_BASE_URL. Unset with no API key: the built-in scripted model is used.',
  }),
  roleSetting({
    env: 'PARLEY_MODEL_API_KEY',
    role: 'apiKey',
    perRole: 'API key',
    schema: text,
    description: 'API key for the model endpoint. Falls back to OPENAI_API_KEY.',
  }),
  roleSetting({
    env: 'PARLEY_MODEL',
    role: 'model',
    perRole: 'model name',
    schema: text,
    default: 'gpt-4o-mini',
    description: 'Default model for every role that has no model of its own.',
  }),
  roleSetting({
    env: 'PARLEY_MODEL_TEMPERATURE',
    role: 'temperature',
    perRole: 'temperature',
    schema: temperature,
    description: 'Default sampling temperature (unset: the provider default).',
  }),
  roleSetting({
    env: 'PARLEY_MODEL_MAX_TOKENS',
    role: 'maxTokens',
    perRole: 'max output tokens',
    schema: positiveInt,
    description:
      'Default max output tokens per call (unset: 8192, and less for roles with short answers: router 2048, judge 2048, verifier 4096, council_reviewer 4096). Every call is sent with it, lowered to what the budgets have left, and reserves it.',
  }),
  roleSetting({
    env: 'PARLEY_MODEL_PROVIDER',
    role: 'provider',
    perRole: 'provider preset',
    schema: provider,
    default: 'auto',
    description: `Provider preset of the model endpoint (docs/models.md): auto (detected from the base URL where unambiguous, else generic) or one of ${PRESET_IDS.join(', ')}.`,
  }),
  roleSetting({
    env: 'PARLEY_MODEL_STRUCTURED',
    role: 'structured',
    perRole: 'structured-output strategy',
    schema: structured,
    description:
      "Structured-output strategy: json_schema (response_format), tool (a forced tool call) or prompt (schema in the prompt, tolerant extraction). Unset: the preset's, corrected at run time.",
  }),
  roleSetting({
    env: 'PARLEY_MODEL_CAPABILITIES',
    role: 'capabilities',
    perRole: 'capability overrides',
    schema: capabilityOverrides,
    description:
      'Capability overrides on top of the preset, e.g. tools=no,stream_usage=no,max_tokens_field=max_tokens (keys: structured, tools, parallel_tool_calls, stream_usage, images, max_tokens_field, temperature).',
  }),
  roleSetting({
    env: 'PARLEY_MODEL_HEADERS',
    role: 'headers',
    perRole: 'extra request headers (replace the default ones)',
    schema: headers,
    description:
      'Extra headers sent with every model request, as a JSON object, e.g. {"X-Tenant":"acme"} (gateways that want a tenant or their own auth header). Never logged.',
  }),
  roleSetting({
    env: 'PARLEY_MODEL_CONTEXT_WINDOW',
    role: 'contextWindow',
    perRole: 'context window in tokens',
    schema: positiveInt,
    description:
      "Tokens the models accept, prompt and answer together (unset: the model's published figure when Parley knows its name, else 32768; docs/models.md). Step outputs and inlined results are sized to it; over it they are summarized, and the prompt says so.",
  }),
  roleSetting({
    env: 'PARLEY_MODEL_TIMEOUT_MS',
    role: 'timeoutMs',
    perRole: 'timeout',
    schema: positiveInt,
    default: '60000',
    description: 'Per-attempt timeout of a model call.',
  }),
  {
    env: 'PARLEY_MODEL_MAX_RETRIES',
    at: 'model.maxRetries',
    schema: nonNegativeInt,
    default: '3',
    description:
      'Retries on 429/5xx/timeouts/connection errors (exponential backoff with jitter, honours Retry-After).',
  },
  {
    env: 'PARLEY_MODEL_RETRY_BASE_MS',
    at: 'model.retryBaseMs',
    schema: positiveInt,
    default: '500',
    description: 'First backoff delay; doubles each retry, capped at 30 s.',
  },
  homeSetting({
    env: 'PARLEY_PRICES_FILE',
    at: 'model.pricesFile',
    schema: text,
    fromHome: (value, paths) => value ?? paths.prices.path,
    description:
      'Unset: <home>/prices.json when present, else the shipped one. Price catalog (USD per million tokens, per model). Every model a role uses needs a price here (0 is a price) or in PARLEY_FREE_MODELS, or Parley refuses to start: cost budgets cannot be enforced on an unknown cost.',
  }),
  {
    env: 'PARLEY_SCRIPTED_PROFILE',
    at: 'model.scriptedProfile',
    schema: z
      .string()
      .refine(isProfileList, 'a comma list of scripted-model profiles or presets (docs/scripted-model.md)'),
    default: 'openai',
    description:
      "Provider profiles of the built-in scripted model, when it is used: reproduces another provider's quirks (docs/scripted-model.md).",
  },
  {
    env: 'PARLEY_FREE_MODELS',
    at: 'model.freeModels',
    schema: list,
    default: '',
    description:
      "Comma-separated models that cost nothing (local models, e.g. Ollama's llama3.2): priced at 0 without a PARLEY_PRICES_FILE entry. Their tokens still count against token budgets.",
  },
  {
    env: 'PARLEY_SCRIPTED_LATENCY_MS',
    at: 'model.scriptedLatencyMs',
    schema: nonNegativeInt,
    default: '0',
    description: 'Fixed latency of the built-in scripted model, when it is used.',
  },
] as const satisfies readonly Setting[];
