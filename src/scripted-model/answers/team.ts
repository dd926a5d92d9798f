/**
 * A dynamic team agent's turn (the request carries a <parley:team> block and team tools), decided from
 * the tools it has called so far, so every run of the same query takes the same turns:
 *
 * - a manager spawns its agents ([[spawn:N]], else one per specialist sharing words with the query;
 *   managers again while [[depth:D]] allows; [[detach]]: without waiting for them), then reads
 *   `findings`, then writes `summary` and finishes with it (3 turns); with [[deadlock]] it spawns one
 *   worker that waits for a message from it;
 * - a worker makes the [[tool:…]] calls it is asked for, sends [[message:TEXT]] to its next sibling
 *   and waits for one (unless one came already), then appends its finding to `findings` and finishes
 *   in one turn (1 turn without directives).
 */
import { contentText, stripDirectives, type RequestContext, type ScriptedMessage } from '../context.ts';
import { ranked } from './graph-plan.ts';
import { toolCalls, type OfferedTool, type ScriptedToolCall } from './tools.ts';

const TEAM_TOOLS = new Set([
  'spawn_agent',
  'send_message',
  'check_messages',
  'broadcast',
  'read_context',
  'write_context',
  'append_context',
  'context_keys',
  'finish',
]);

const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

export function teamTurn(
  ctx: RequestContext,
  messages: ScriptedMessage[],
  tools: OfferedTool[],
  callIdPrefix: string,
): ScriptedToolCall[] {
  const team = ctx.team!;
  const called = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function?.name ?? ''));
  const has = (name: string) => called.includes(name);
  const offered = new Set(tools.map((t) => t.function?.name ?? ''));
  const call = (name: string, args: unknown, i = 0): ScriptedToolCall => ({
    id: `${callIdPrefix}_${i}`,
    name,
    arguments: JSON.stringify(args),
  });
  const task = objectiveOf(messages);

  if (team.role === 'manager' && offered.has('spawn_agent')) {
    if (!has('spawn_agent')) return spawns(ctx, task).map((args, i) => call('spawn_agent', args, i));
    if (!has('read_context')) return [call('read_context', { key: 'findings' })];
    const summary = summaryOf(task, messages);
    return [call('write_context', { key: 'summary', value: summary }), call('finish', { result: summary }, 1)];
  }

  // A worker: first the tool calls its request names (its specialist's tools, never the team's).
  const own = toolCalls(
    ctx,
    messages,
    tools.filter((t) => !TEAM_TOOLS.has(t.function?.name ?? '')),
    callIdPrefix,
  );
  if (own.length && !called.some((n) => !TEAM_TOOLS.has(n))) return own;
  const d = ctx.directives;
  if (d.deadlock && team.parent && !has('check_messages'))
    return [call('check_messages', { wait: true, from: team.parent })];
  if (d.message !== undefined && !has('send_message'))
    return [call('send_message', { to: nextSibling(team), content: d.message })];
  // It waits for its sibling's message unless one already reached it with a turn.
  const heard = messages.some((m) => m.role === 'user' && contentText(m.content).includes('[Message from'));
  if (d.message !== undefined && nextSibling(team) !== team.parent && !heard && !has('check_messages'))
    return [call('check_messages', { wait: true })];
  const finding = clip(task, 120);
  return [
    call('append_context', { key: 'findings', item: finding }),
    call('finish', { result: workerResult(task, messages) }, 1),
  ];
}

/** The objective the engine gave this agent (its first user message's "Your objective" line, else all of it). */
function objectiveOf(messages: ScriptedMessage[]): string {
  const first = contentText(messages.find((m) => m.role === 'user')?.content);
  const m = /Your objective \(step [^)]*\):\s*([\s\S]*)$/.exec(first);
  return stripDirectives((m ? m[1]! : first).trim());
}

function spawns(ctx: RequestContext, task: string): Record<string, unknown>[] {
  const team = ctx.team!;
  const d = ctx.directives;
  if (d.deadlock) return [{ task: `${task} (waits for word from ${team.agent})`, role: 'worker' }];
  const pool = ranked({ ...ctx, query: task });
  const matching = pool.filter((c) => c.score > 0).slice(0, 4);
  const count = d.spawn ?? Math.max(1, matching.length);
  const chosen = (matching.length ? matching : pool.slice(0, 1)).map((c) => c.specialist.id);
  // Managers again until [[depth:D]] levels of them (the first manager is depth 0).
  const role = team.depth + 1 < (d.depth ?? 1) ? 'manager' : 'worker';
  return Array.from({ length: count }, (_, i) => {
    const specialist = chosen.length ? chosen[i % chosen.length]! : undefined;
    return {
      task: `${task} (part ${i + 1} of ${count})`,
      role,
      // A name for its role, as the manager's prompt asks: a worker by its specialist, a manager as a lead.
      name: role === 'manager' ? `lead ${i + 1}` : (specialist ?? 'helper'),
      ...(specialist && role === 'worker' ? { specialist } : {}),
      ...(d.detach ? { wait: false } : {}),
    };
  });
}

/**
 * The sibling after this agent in id order (its spawner's other agents, which all start together when
 * its spawner's turn ends), the first after the last; the parent when it has none.
 */
function nextSibling(team: NonNullable<RequestContext['team']>): string | undefined {
  if (!team.parent || team.siblings.length === 0) return team.parent;
  const ring = [...team.siblings, team.agent].sort();
  return ring[(ring.indexOf(team.agent) + 1) % ring.length];
}

/** What the team found: the results and messages delivered to the manager, the findings it read, any refusals. */
function summaryOf(task: string, messages: ScriptedMessage[]): string {
  const delivered = messages
    .filter((m) => m.role === 'user')
    .slice(1)
    .map((m) => contentText(m.content))
    .join('\n')
    .split(/\n(?=\[(?:Result|Message) from )/)
    .map((l) => clip(l.trim(), 300))
    .filter(Boolean);
  const results = messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content));
  const findings = results.find((r) => r.startsWith('['));
  const refused = results.filter((r) => r.startsWith('Error: spawn refused'));
  // Written for the user, as the manager's prompt asks: what was found, never who found it.
  const found = delivered.map((l) => l.replace(/^\[(?:Result|Message) from [^\]]*\][^:]*:\s*/, ''));
  return [
    `Answer to "${task}", from ${delivered.filter((l) => l.startsWith('[Result from')).length} parts of the work:`,
    ...found.map((l) => `- ${l}`),
    ...(findings ? [`Also noted: ${clip(findings, 600)}`] : []),
    ...refused.map((r) => `- Not split further: ${r.replace(/^Error: spawn refused: /, '')}`),
  ].join('\n');
}

function workerResult(task: string, messages: ScriptedMessage[]): string {
  const heard = messages
    .filter((m) => m.role === 'tool' || m.role === 'user')
    .map((m) => contentText(m.content))
    .filter((t) => t.startsWith('[Message from'));
  const tools = messages
    .filter((m) => m.role === 'tool')
    .map((m) => contentText(m.content))
    .filter((t) => !/^(Appended|Wrote|Message sent|No messages|\[Message from)/.test(t));
  return [
    `Scripted agent result for "${task}": the part was analysed and the key points are listed here.`,
    ...tools.map((t) => `Tool result: ${clip(t, 200)}`),
    ...heard.map((t) => `Heard: ${clip(t, 200)}`),
  ].join('\n');
}
