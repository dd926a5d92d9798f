/**
 * The model port: every model call in Parley goes through an implementation of ModelClient
 * (src/llm/client.ts in production). The engine depends on this interface only.
 */
import type { ZodType } from 'zod';
import type OpenAI from 'openai';

/** Roles a model can play; each has its own model settings and falls back to the default. */
export const MODEL_ROLES = [
  'default',
  'router',
  'planner',
  'specialist',
  'verifier',
  'synthesizer',
  'council_advisor',
  'council_reviewer',
  'council_chairman',
  'summarizer',
  /** Grades an answer against a rubric: evaluation suites' LLM-as-judge checks (src/eval/, docs/evals.md). */
  'judge',
] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ChatTool = OpenAI.Chat.Completions.ChatCompletionTool;
export type ToolCall = { id: string; name: string; arguments: string };

/** Token usage and cost of one model call. costUsd is null when the model has no price in the catalog. */
export interface ModelUsage {
  model: string;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** Of outputTokens, how many the model spent reasoning (where the provider reports it). */
  reasoningTokens?: number;
  costUsd: number | null;
}

export interface ModelCallOptions {
  role: ModelRole;
  messages: ChatMessage[];
  /** Overrides the role's configured model for this call. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Correlates the call with a run (sent as the x-parley-run-id header). */
  runId?: string;
  /**
   * The role whose endpoint, model and settings the call uses (default: `role`). The call is still
   * labelled and metered as `role`: a summarizer with no settings of its own uses the role it serves.
   */
  settingsRole?: ModelRole;
}

export interface ChatOptions extends ModelCallOptions {
  tools?: ChatTool[];
}

export interface ChatResult {
  text: string;
  /** The model's reasoning (reasoning_content / reasoning fields), kept out of `text`. */
  reasoning?: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: ModelUsage;
}

export type StreamChunk =
  | { type: 'delta'; text: string }
  /** Reasoning text streamed before (or between) the answer's deltas; never part of `text`. */
  | { type: 'reasoning'; text: string }
  | { type: 'done'; text: string; finishReason: string | null; usage: ModelUsage };

export interface StructuredOptions<T> extends ModelCallOptions {
  schema: ZodType<T>;
  /** Name of the JSON schema sent in response_format (the scripted model answers by it). */
  schemaName: string;
}

export interface StructuredResult<T> {
  value: T;
  /** The model's reasoning (of both attempts when a repair was asked), kept out of the JSON. */
  reasoning?: string;
  usage: ModelUsage;
}

export interface ModelClient {
  chat(options: ChatOptions): Promise<ChatResult>;
  stream(options: ModelCallOptions): AsyncIterable<StreamChunk>;
  structured<T>(options: StructuredOptions<T>): Promise<StructuredResult<T>>;
  /** The model a role resolves to (after per-call override), for budgeting and display. */
  modelFor(role: ModelRole, override?: string): string;
}
