/**
 * direct_answer: the fast path. One streamed model call answers the query; no plan, no specialists. Its
 * prompt is a bare call's plus only what helps the person who asked: who answers, the date (so "latest"
 * and date arithmetic are right) and any relevant memory. No rule on length or form: a rule that trims
 * answers made them worse than the same model's bare answer (issue 43).
 */
import { memoryNote } from '../prompting/prompts.ts';
import { todayNoteOf } from '../prompting/today.ts';
import { emit, type EngineContext, type NodeRun } from '../run/state.ts';
import type { ChatMessage } from '../../llm/types.ts';
import type { Decision, Next } from '../run/edges.ts';
import { userContent } from '../prompting/user-content.ts';

export async function directAnswer(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'direct_answer'>>> {
  const messages = [
    {
      role: 'system',
      content: `You are Parley, a helpful assistant.${memoryNote(run.memory)}${todayNoteOf(ctx)}`,
    },
    ...run.history.messages.map((m) => ({ role: m.role, content: m.content })),
    { role: 'user', content: userContent(run, ctx, 'default', run.request.query) },
  ] as ChatMessage[];
  const pieces: string[] = []; // joined once: see synthesizer.ts
  for await (const chunk of run.model.stream({ role: 'default', messages, signal: run.abort.signal })) {
    if (chunk.type === 'delta' && chunk.text) {
      pieces.push(chunk.text);
      emit(run, { type: 'answer.delta', text: chunk.text });
    }
  }
  return { next: 'end', update: { answer: pieces.join('') } };
}
