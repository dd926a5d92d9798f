/**
 * The user turn of a model call with the request's extra parts: text parts always, image parts only
 * for the roles configured to accept images (PARLEY_IMAGE_ROLES); another role is told how many images
 * came, so it does not answer as if there were none.
 */
import type { ChatMessage, ModelRole } from '../../llm/types.ts';
import type { EngineContext, RunState } from '../run/state.ts';

/** What a user message may carry: text, or text and image parts. */
export type UserContent = Extract<ChatMessage, { role: 'user' }>['content'];

export function userContent(run: RunState, ctx: EngineContext, role: ModelRole, text: string): UserContent {
  const parts = run.request.parts ?? [];
  if (parts.length === 0) return text;
  const images = ctx.config.engine.imageRoles.includes(role);
  const hidden = images ? 0 : parts.filter((p) => p.type === 'image').length;
  const content: Exclude<UserContent, string> = [
    { type: 'text', text },
    ...parts.flatMap((p): Exclude<UserContent, string> => {
      if (p.type === 'text') return [{ type: 'text', text: p.text }];
      return images ? [{ type: 'image_url', image_url: { url: p.url } }] : [];
    }),
  ];
  if (hidden)
    content.push({
      type: 'text',
      text: `[${hidden} image${hidden === 1 ? '' : 's'} attached to the request, not shown to this model]`,
    });
  return content;
}
