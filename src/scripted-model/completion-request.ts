/**
 * The chat-completions request body as the scripted model reads it (the fields it acts on). Its own
 * file so that answer.ts, the profiles and the HTTP side all read it without importing each other.
 */
import type { ScriptedMessage } from './context.ts';
import type { JsonSchema } from './json-schema.ts';
import type { OfferedTool } from './answers/tools.ts';

export interface CompletionRequest {
  model?: string;
  messages: ScriptedMessage[];
  tools?: OfferedTool[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  response_format?: { type?: string; json_schema?: { name?: string; schema?: JsonSchema } };
}
