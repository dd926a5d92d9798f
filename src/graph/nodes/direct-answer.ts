/** direct_answer: the fast path. One streamed model call answers the query; no plan, no specialists. */
import { memoryNote } from '../prompts.ts';
import { emit, type EngineContext, type RunState } from '../state.ts';
import type { ChatMessage } from '../../llm/types.ts';
import type { NodeResult } from './node.ts';

export async function directAnswer(run: RunState, _ctx: EngineContext): Promise<NodeResult> {
  const parts = run.request.parts ?? [];
  const userContent: ChatMessage['content'] = parts.length
    ? [
        { type: 'text', text: run.request.query },
        ...parts.map((p) =>
          p.type === 'text'
            ? { type: 'text' as const, text: p.text }
            : { type: 'image_url' as const, image_url: { url: p.url } },
        ),
      ]
    : run.request.query;
  const messages = [
    {
      role: 'system',
      content: `You are Parley, a helpful assistant. Answer directly and concisely.${memoryNote(run.memory)}`,
    },
    ...(run.request.messages ?? []).map((m) => ({ role: m.role, content: m.content })),
    { role: 'user', content: userContent },
  ] as ChatMessage[];
  const pieces: string[] = []; // joined once: see synthesizer.ts
  for await (const chunk of run.model.stream({ role: 'default', messages, signal: run.abort.signal })) {
    if (chunk.type === 'delta' && chunk.text) {
      pieces.push(chunk.text);
      emit(run, { type: 'answer.delta', text: chunk.text });
    }
  }
  run.answer = pieces.join('');
  return 'end';
}
