/** Plain text answers: deterministic, built from the question (and step results or tool results when given). */
import { contentText, type RequestContext, type ScriptedMessage } from '../context.ts';

const clip = (text: string, n: number) => (text.length > n ? text.slice(0, n) + '…' : text);

export function textAnswer(ctx: RequestContext, role: string, messages: ScriptedMessage[]): string {
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  const toolResults = messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
  if (toolResults.length) {
    const quoted = toolResults.map((m) => `"${clip(contentText(m.content), 300)}"`).join('; ');
    return `Based on the tool results ${quoted}, here is the answer to "${ctx.query}".`;
  }
  const steps = ctx.steps ?? [];
  if (steps.length) {
    const lines = steps.map((s) => `- ${s.specialist || s.id} (${s.status || 'unknown'}): ${clip(s.output, 300)}`);
    return `Answer to "${ctx.query}", synthesized from ${steps.length} step result${steps.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
  }
  if (role === 'specialist')
    return `Scripted specialist result for "${ctx.query}": the objective was analysed and the key points are listed here.`;
  return `Scripted answer to "${ctx.query}": this reply comes from Parley's built-in scripted model, so it repeats what was asked.`;
}
