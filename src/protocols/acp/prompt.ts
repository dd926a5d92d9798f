/**
 * ACP prompt content → the query text and parts of a RunRequest.
 * Text and resource links are the ACP baseline; embedded text resources (promptCapabilities.embeddedContext)
 * are inlined as fenced blocks; images become data: URL parts. Audio and binary blobs are not advertised
 * and are refused with a clear invalid-params error rather than silently dropped.
 */
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk';
import type { ContentPart } from '../../graph/contract.ts';

export interface PromptInput {
  query: string;
  parts: ContentPart[];
}

export function promptToQuery(blocks: ContentBlock[]): PromptInput {
  const texts: string[] = [];
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'resource_link':
        texts.push(`[${block.title ?? block.name}](${block.uri})`);
        break;
      case 'resource':
        if ('text' in block.resource) {
          texts.push(`${block.resource.uri}\n\`\`\`\n${block.resource.text}\n\`\`\``);
        } else {
          throw RequestError.invalidParams(
            { uri: block.resource.uri },
            'binary embedded resources are not supported; send text or a resource_link',
          );
        }
        break;
      case 'image':
        parts.push({ type: 'image', url: `data:${block.mimeType};base64,${block.data}`, mimeType: block.mimeType });
        break;
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `content blocks of type "${block.type}" are not supported`,
        );
    }
  }
  const query = texts.join('\n\n').trim();
  if (!query) throw RequestError.invalidParams(undefined, 'the prompt has no text');
  return { query, parts };
}
