/**
 * Context windows: how many tokens (prompt and answer together) a model accepts. Parley sizes what it
 * puts in a prompt (step outputs, inlined results) from the window of the model that reads it
 * (src/graph/prompting/context-budget.ts). A role's PARLEY_MODEL_[<ROLE>_]CONTEXT_WINDOW wins; else the model's
 * name is looked up here (the figures are the providers' published context lengths); else
 * DEFAULT_CONTEXT_WINDOW, a size most current models exceed.
 */

/** The window of a model this table does not know and no setting names. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/** Published context lengths, by a pattern of the model id's last path segment (first match wins). */
export const KNOWN_CONTEXT_WINDOWS: readonly { pattern: RegExp; tokens: number; source: string }[] = [
  { pattern: /^gpt-4\.1/, tokens: 1_047_576, source: 'platform.openai.com/docs/models/gpt-4.1' },
  { pattern: /^gpt-5/, tokens: 400_000, source: 'platform.openai.com/docs/models/gpt-5' },
  { pattern: /^gpt-4o/, tokens: 128_000, source: 'platform.openai.com/docs/models/gpt-4o' },
  { pattern: /^o\d/, tokens: 200_000, source: 'platform.openai.com/docs/models (o1, o3, o4-mini)' },
  { pattern: /^gpt-4-turbo/, tokens: 128_000, source: 'platform.openai.com/docs/models/gpt-4-turbo' },
  { pattern: /^gpt-3\.5-turbo/, tokens: 16_385, source: 'platform.openai.com/docs/models/gpt-3.5-turbo' },
  { pattern: /^claude-/, tokens: 200_000, source: 'docs.anthropic.com/en/docs/about-claude/models' },
  { pattern: /^gemini-(1\.5|2)/, tokens: 1_048_576, source: 'ai.google.dev/gemini-api/docs/models' },
  { pattern: /^deepseek-/, tokens: 128_000, source: 'api-docs.deepseek.com/quick_start/pricing' },
  {
    pattern: /^(mistral-large|mistral-medium|mistral-small)/,
    tokens: 128_000,
    source: 'docs.mistral.ai/getting-started/models',
  },
  {
    pattern: /^llama-?3\.[1-3]/,
    tokens: 128_000,
    source: 'llama.com/docs/model-cards-and-prompt-formats (Llama 3.1+)',
  },
  { pattern: /^qwen2\.5/, tokens: 32_768, source: 'qwenlm.github.io/blog/qwen2.5' },
];

/** The model's window: the setting when given, else the known figure for its name, else the default. */
export function contextWindowOf(settings: { contextWindow?: number }, model: string): number {
  if (settings.contextWindow !== undefined) return settings.contextWindow;
  const name = (model.split('/').at(-1) ?? model).toLowerCase();
  return KNOWN_CONTEXT_WINDOWS.find((k) => k.pattern.test(name))?.tokens ?? DEFAULT_CONTEXT_WINDOW;
}
