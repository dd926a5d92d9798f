/**
 * The model settings llm/ runs on: how to reach a model for each role, and the model block of the
 * configuration. llm/ owns these types; config.ts reads the environment into them (so config.ts
 * imports llm/, never the other way round).
 */
import type { Capabilities, StructuredStrategy } from './capabilities.ts';
import type { ModelRole } from './types.ts';

export interface RoleModelConfig {
  model: string;
  baseUrl: string;
  apiKey: string;
  temperature?: number;
  maxTokens?: number;
  timeoutMs: number;
  /** Provider preset id, or "auto" (detected from baseUrl). */
  provider?: string;
  /** Structured-output strategy override. */
  structured?: StructuredStrategy;
  /** Capability overrides on top of the preset. */
  capabilities?: Partial<Capabilities>;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Tokens the model accepts, prompt and answer together (unset: known figure for the model, else the default; context-windows.ts). */
  contextWindow?: number;
}

/** Config.model: every setting of model access. */
export interface ModelSettings {
  /** True when no endpoint was configured and the built-in scripted model answers. */
  scripted: boolean;
  scriptedLatencyMs: number;
  scriptedProfile: string;
  maxRetries: number;
  retryBaseMs: number;
  pricesFile: string;
  /** Models priced at 0 without a catalog entry (PARLEY_FREE_MODELS). */
  freeModels: string[];
  embeddingsModel?: string;
  roles: Record<ModelRole, RoleModelConfig>;
  /** Roles with a PARLEY_MODEL_<ROLE>… setting of their own (the summarizer uses the role it serves when it has none). */
  ownRoles: ModelRole[];
}
