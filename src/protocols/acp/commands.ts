/**
 * Slash commands the session offers (`available_commands_update`): each picks the run mode. With text
 * after it, that prompt runs in the mode; alone, it sets the mode of the next prompt.
 */
import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk';
import type { RunMode } from '../../graph/contract.ts';

const COMMANDS: { name: string; mode: RunMode; description: string }[] = [
  { name: 'council', mode: 'council', description: 'Ask the council: five advisors, three reviewers, a verdict.' },
  { name: 'plan', mode: 'orchestrate', description: 'Plan it: specialists run as a DAG, verified, synthesized.' },
  { name: 'direct', mode: 'direct', description: 'One model call answers; no plan, no specialists.' },
  { name: 'auto', mode: 'auto', description: 'Let the router decide (direct, plan or council).' },
];

export const AVAILABLE_COMMANDS: AvailableCommand[] = COMMANDS.map((c) => ({
  name: c.name,
  description: c.description,
  input: { hint: 'what to ask (empty: the next prompt)' },
}));

export interface SlashCommand {
  mode: RunMode;
  /** The prompt without the command; empty when the command came alone. */
  rest: ContentBlock[];
}

/** The command a prompt starts with (`/council …` in its first text block), if it names one of ours. */
export function readSlashCommand(prompt: ContentBlock[]): SlashCommand | undefined {
  const [first, ...others] = prompt;
  if (first?.type !== 'text') return undefined;
  const match = /^\s*\/([a-z]+)(?:\s+|$)/.exec(first.text);
  const command = match && COMMANDS.find((c) => c.name === match[1]);
  if (!match || !command) return undefined;
  const text = first.text.slice(match[0].length);
  return { mode: command.mode, rest: text.trim() ? [{ ...first, text }, ...others] : others };
}
