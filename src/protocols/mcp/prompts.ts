/**
 * MCP prompts for Parley's run modes (IDEs show them as slash commands: /council, /plan, /direct). Each
 * is one user message telling the IDE's model which Parley tool to call, how, and with what text; the
 * `specialist` argument of /plan completes from the registry's specialist ids (completion/complete).
 * Parley's planner picks specialists by the question, so naming one makes it likely to be picked, not
 * certain; the message says so rather than promising it.
 */
import { completable, type GetPromptResult, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { KnowledgeReads } from '../../graph/contract.ts';

/** Most completion values one answer carries (the spec's cap is 100). */
const MAX_COMPLETIONS = 50;

const userMessage = (text: string): GetPromptResult => ({
  messages: [{ role: 'user', content: { type: 'text', text } }],
});

/** Specialist ids (available ones) that start with `prefix`, or whose id or name contain it. */
export async function specialistIds(store: KnowledgeReads, prefix: string): Promise<string[]> {
  const wanted = prefix.toLowerCase();
  const all = await store.listSpecialists({ available: true });
  const starts = all.filter((s) => s.id.toLowerCase().startsWith(wanted));
  const contains = all.filter((s) => !starts.includes(s) && `${s.id} ${s.name}`.toLowerCase().includes(wanted));
  return [...starts, ...contains].slice(0, MAX_COMPLETIONS).map((s) => s.id);
}

export function registerModePrompts(server: McpServer, store: KnowledgeReads): void {
  server.registerPrompt(
    'council',
    {
      title: 'Ask the council',
      description: "Put a decision to Parley's council: five advisors, anonymous peer review, a chairman's advice.",
      argsSchema: z.object({
        question: z.string().min(1).max(20_000).describe('The decision to deliberate, with the context that matters.'),
      }),
    },
    ({ question }) =>
      userMessage(
        "Call Parley's `council` tool with this question and show me its answer as it is written (the structured " +
          `verdict is there if I ask how the council decided):\n\n${question}`,
      ),
  );

  server.registerPrompt(
    'plan',
    {
      title: 'Plan and run with specialists',
      description:
        'Have Parley plan the task as steps for its specialists, run them, verify and synthesize one answer.',
      argsSchema: z.object({
        task: z.string().min(1).max(20_000).describe('The task or question, in plain language.'),
        // completable inside optional: the SDK finds a completable argument under one optional wrapper.
        specialist: completable(
          z.string().max(200).describe('A specialist id to name in the task (completes from the registry).'),
          (value) => specialistIds(store, value),
        ).optional(),
      }),
    },
    ({ task, specialist }) =>
      userMessage(
        `Call Parley's \`ask\` tool with mode "orchestrate" and this query, then show me its answer:\n\n${task}` +
          (specialist
            ? `\n\nAdd to the query: "Use the specialist ${specialist} for this." (Parley picks specialists by the ` +
              'query, so naming one makes it likely to be picked, not certain.)'
            : ''),
      ),
  );

  server.registerPrompt(
    'direct',
    {
      title: 'Ask directly',
      description: 'One model call through Parley, no plan and no specialists: the quickest answer.',
      argsSchema: z.object({
        question: z.string().min(1).max(20_000).describe('The question, in plain language.'),
      }),
    },
    ({ question }) =>
      userMessage(
        `Call Parley's \`ask\` tool with mode "direct" and this query, then show me its answer:\n\n${question}`,
      ),
  );
}
