/**
 * An MCP tool result as the model reads it: a result with nothing in it is no content (the tool loop
 * then says so in words, EMPTY_TOOL_RESULT), never `{"content":""}` for the model to puzzle over.
 */
import { describe, expect, it } from 'vitest';
import { resultToText } from '../../../src/tools/result-text.ts';

describe('resultToText', () => {
  it('is empty for an empty text block and structured content holding only empty values', () => {
    expect(resultToText({ content: [{ type: 'text', text: '' }], structuredContent: { content: '' } })).toBe('');
    expect(resultToText({ content: [], structuredContent: { items: [], meta: { note: ' ' }, next: null } })).toBe('');
  });

  it('keeps structured content that holds something, and text whatever the structured content', () => {
    expect(resultToText({ content: [], structuredContent: { content: '', size: 0 } })).toBe('{"content":"","size":0}');
    expect(resultToText({ content: [{ type: 'text', text: 'hello' }], structuredContent: { content: '' } })).toBe(
      'hello',
    );
  });
});
