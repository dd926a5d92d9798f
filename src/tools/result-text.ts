/**
 * Turns an MCP CallToolResult into the text a model reads, truncated at a limit with a note
 * saying so (the whole result stays in ToolCallResult.full for the step's lineage).
 */

interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; mimeType?: string; blob?: string };
}

export interface McpCallResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

export function resultToText(result: McpCallResultLike): string {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  const parts = blocks.map(blockToText).filter((s) => s.length > 0);
  // Structured content with nothing in it (`{"content":""}` for an empty file) is no content: the caller says so in words.
  if (parts.length === 0 && result.structuredContent !== undefined && !isEmptyValue(result.structuredContent))
    return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

/** "", null, [], {} and objects or arrays holding only those. */
function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every(isEmptyValue);
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>).every(isEmptyValue);
  return false;
}

function blockToText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType ?? 'unknown type'}, ${Math.floor(((block.data?.length ?? 0) * 3) / 4)} bytes]`;
    case 'resource':
      return (
        block.resource?.text ??
        `[resource: ${block.resource?.uri ?? 'unknown'}${block.resource?.blob ? ', binary' : ''}]`
      );
    case 'resource_link':
      return `[resource link: ${block.uri ?? ''}${block.name ? ` (${block.name})` : ''}]`;
    default:
      return `[${block.type} content]`;
  }
}

export function truncateForModel(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return (
    text.slice(0, maxChars) +
    `\n\n[truncated: showing the first ${maxChars} of ${text.length} characters; the rest is not kept]`
  );
}
