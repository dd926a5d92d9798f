/**
 * Provider presets: the capabilities each provider's own documentation states for its
 * OpenAI-compatible endpoint (the source is named per preset and in docs/models.md). They were
 * exercised against the scripted model's provider profiles, not against the live endpoints; a
 * preset is a starting point that configuration and run-time learning correct.
 */
import type { Capabilities } from './capabilities.ts';

export interface ProviderPreset {
  id: string;
  name: string;
  /** Where the capabilities come from. */
  source: string;
  capabilities: Capabilities;
  /** Per-model adjustments (reasoning models and the like). */
  forModel?: (model: string) => Partial<Capabilities>;
  /** True when a base URL can only be this provider. */
  detect?: (url: URL) => boolean;
}

const full: Capabilities = {
  structured: 'json_schema',
  tools: true,
  parallelToolCalls: true,
  streamUsage: true,
  images: true,
  maxTokensField: 'max_tokens',
  temperature: true,
};
/** OpenAI's reasoning models (o1, o3, o4-mini, gpt-5…) refuse temperature. */
const openaiReasoning = (model: string): Partial<Capabilities> =>
  /^(o\d|gpt-5)/.test(model.split('/').at(-1) ?? model) ? { temperature: false } : {};
const host = (url: URL) => url.hostname.toLowerCase();
const port = (url: URL) => url.port;

export const PRESETS: readonly ProviderPreset[] = [
  {
    id: 'openai',
    name: 'OpenAI',
    source:
      'platform.openai.com/docs/api-reference/chat (max_completion_tokens; max_tokens not for o-series) and /docs/guides/reasoning',
    capabilities: { ...full, maxTokensField: 'max_completion_tokens' },
    forModel: openaiReasoning,
    detect: (u) => host(u) === 'api.openai.com',
  },
  {
    id: 'azure',
    name: 'Azure OpenAI',
    source:
      'learn.microsoft.com/azure/ai-foundry/openai (v1 API, reasoning models: max_completion_tokens, no temperature)',
    capabilities: { ...full, maxTokensField: 'max_completion_tokens' },
    forModel: openaiReasoning,
    detect: (u) => host(u).endsWith('.openai.azure.com') || host(u).endsWith('.services.ai.azure.com'),
  },
  {
    id: 'anthropic',
    name: 'Anthropic (OpenAI SDK compatibility)',
    source:
      'platform.claude.com/docs/en/api/openai-sdk (response_format ignored, tools strict ignored, system/developer messages hoisted, temperature 0..1, stream_options supported)',
    capabilities: { ...full, structured: 'tool', maxTokensField: 'max_tokens' },
    detect: (u) => host(u) === 'api.anthropic.com',
  },
  {
    id: 'google',
    name: 'Google Gemini (OpenAI compatibility)',
    source:
      'ai.google.dev/gemini-api/docs/openai (structured output via response_format, function calling, image input, streaming)',
    capabilities: { ...full, parallelToolCalls: false },
    detect: (u) => host(u) === 'generativelanguage.googleapis.com',
  },
  {
    id: 'openrouter',
    name: 'OpenRouter',
    source:
      'openrouter.ai/docs (structured outputs on models that support them, tool calling, reasoning in a `reasoning` field, usage in streams)',
    capabilities: { ...full },
    detect: (u) => host(u) === 'openrouter.ai',
  },
  {
    id: 'groq',
    name: 'Groq',
    source:
      'console.groq.com/docs/openai (logprobs, logit_bias, top_logprobs, messages[].name give 400; structured outputs on some models only: console.groq.com/docs/structured-outputs)',
    capabilities: { ...full, images: false },
    detect: (u) => host(u) === 'api.groq.com',
  },
  {
    id: 'mistral',
    name: 'Mistral',
    source:
      'docs.mistral.ai/capabilities/structured-output (response_format json_schema), /capabilities/function_calling',
    capabilities: { ...full, parallelToolCalls: false },
    detect: (u) => host(u) === 'api.mistral.ai',
  },
  {
    id: 'deepseek',
    name: 'DeepSeek',
    source:
      'api-docs.deepseek.com (JSON Output is json_object only; deepseek-reasoner: reasoning_content, no function calling, temperature accepted but ignored)',
    capabilities: { ...full, structured: 'tool', images: false, parallelToolCalls: false },
    forModel: (model) => (/reasoner/.test(model) ? { structured: 'prompt', tools: false } : {}),
    detect: (u) => host(u) === 'api.deepseek.com',
  },
  {
    id: 'ollama',
    name: 'Ollama',
    source:
      'docs.ollama.com/api/openai-compatibility (response_format, tools, stream_options.include_usage, image content, max_tokens)',
    capabilities: { ...full, parallelToolCalls: false },
    detect: (u) => port(u) === '11434' || host(u) === 'ollama.com',
  },
  {
    id: 'vllm',
    name: 'vLLM',
    source:
      'docs.vllm.ai/en/latest/features/structured_outputs (response_format json_schema), /features/tool_calling (needs --enable-auto-tool-choice), /features/reasoning_outputs',
    capabilities: { ...full, parallelToolCalls: false },
  },
  {
    id: 'llamacpp',
    name: 'llama.cpp server',
    source:
      'github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md (response_format with a schema, tools with --jinja)',
    capabilities: { ...full, parallelToolCalls: false, images: false },
  },
  {
    id: 'lmstudio',
    name: 'LM Studio',
    source: 'lmstudio.ai/docs/developer/openai-compat/structured-output (json_schema only, not json_object), tools',
    capabilities: { ...full, parallelToolCalls: false },
    detect: (u) => port(u) === '1234',
  },
  {
    id: 'generic',
    name: 'OpenAI-compatible (unknown)',
    source: "OpenAI's API shape; corrected at run time when the endpoint rejects a parameter",
    capabilities: { ...full, parallelToolCalls: false },
  },
];

export const PRESET_IDS = PRESETS.map((p) => p.id);

export function presetById(id: string): ProviderPreset | undefined {
  return PRESETS.find((p) => p.id === id);
}

/**
 * Base URLs already matched to their preset. Capabilities are resolved on every model call attempt, and
 * parsing the URL each time was ~0.2 ms of a bench run's main thread (N = 8, docs/performance.md, 2026-12-02
 * afternoon). The base URLs come from the configuration (a few); bounded anyway.
 */
const detected = new Map<string, ProviderPreset>();
const MAX_DETECTED = 64;

/** The preset a base URL can only be (hosted providers by host name; Ollama and LM Studio by their default ports), else generic. */
export function detectPreset(baseUrl: string): ProviderPreset {
  const known = detected.get(baseUrl);
  if (known) return known;
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  const preset = (url && PRESETS.find((p) => p.detect?.(url))) ?? presetById('generic')!;
  if (detected.size >= MAX_DETECTED) detected.clear();
  detected.set(baseUrl, preset);
  return preset;
}

/** The settings a role's capabilities are resolved from (a subset of RoleModelConfig). */
export interface CapabilitySettings {
  baseUrl: string;
  /** A preset id, or "auto" / undefined: detected from the base URL. */
  provider?: string;
  structured?: Capabilities['structured'];
  capabilities?: Partial<Capabilities>;
}

/** The preset a role uses: the one named, else the one its base URL can only be, else generic. */
export function presetFor(settings: CapabilitySettings): ProviderPreset {
  return (
    (settings.provider && settings.provider !== 'auto' ? presetById(settings.provider) : undefined) ??
    detectPreset(settings.baseUrl)
  );
}

/** Preset, then its per-model rules, then the role's overrides (capabilities, then structured). */
export function resolveCapabilities(settings: CapabilitySettings, model: string): Capabilities {
  const preset = presetFor(settings);
  return {
    ...preset.capabilities,
    ...preset.forModel?.(model),
    ...settings.capabilities,
    ...(settings.structured ? { structured: settings.structured } : {}),
  };
}
