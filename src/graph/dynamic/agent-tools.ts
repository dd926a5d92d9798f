/**
 * The built-in tools of a team agent (spawn_agent, send_message, check_messages, broadcast, the team
 * memory's four, finish), offered beside its specialist's own, and the hooks its tool loop calls
 * between turns. Arguments are validated here; a bad call gets an error text the model can act on.
 */
import { z } from 'zod';
import type { ToolDescriptor } from '../../tools/types.ts';
import type { StepClock } from '../planning/scheduler.ts';
import { specialistsBlock, block, type ToolKinds } from '../prompting/prompts.ts';
import type { RunState } from '../run/state.ts';
import type { Team } from './team.ts';
import { rootManagerOf } from './manager-answer.ts';

const SCHEMAS = {
  spawn_agent: z.object({
    task: z.string().min(1).describe('What the new agent is to do, in full: it sees this and the user request'),
    name: z
      .string()
      .max(60)
      .optional()
      .describe(
        'Its role in a few words, e.g. "licence checker": its id is made from it (default: its specialist\'s id)',
      ),
    role: z
      .enum(['worker', 'manager'])
      .default('worker')
      .describe('worker: does the task itself; manager: may spawn agents of its own'),
    specialist: z.string().optional().describe('The specialist id to run the agent (default: the best match)'),
    model: z.string().optional().describe('A model name or a model role for the agent'),
    wait: z
      .boolean()
      .default(true)
      .describe('true: you wait for its result before your next turn; false: you go on, its result comes as a message'),
    changes: z
      .boolean()
      .optional()
      .describe(
        'true when its task writes, edits or deletes files or records; false: it only reads (offered read-only tools). Unset: all its tools',
      ),
  }),
  send_message: z.object({
    to: z.string().min(1).describe('The id of the agent to tell'),
    content: z.string().min(1),
  }),
  check_messages: z.object({
    wait: z.boolean().default(false).describe('true: wait until a message comes'),
    from: z.string().optional().describe('Only messages from this agent'),
  }),
  broadcast: z.object({ content: z.string().min(1) }),
  read_context: z.object({ key: z.string().min(1) }),
  write_context: z.object({ key: z.string().min(1), value: z.unknown() }),
  append_context: z.object({ key: z.string().min(1), item: z.unknown() }),
  context_keys: z.object({}),
  finish: z.object({ result: z.string().describe('Your part of the answer, in full') }),
} as const;

type ToolName = keyof typeof SCHEMAS;

const DESCRIPTIONS: Record<ToolName, string> = {
  spawn_agent: 'Start a new agent on part of the work; returns its id.',
  send_message: 'Send a message to another agent of the team; it reads it in its next turn.',
  check_messages: 'Read the messages sent to you (optionally waiting for one).',
  broadcast: 'Send a message to every other running agent of the team.',
  read_context: "Read a key of the team's shared memory.",
  write_context: "Set a key of the team's shared memory.",
  append_context: "Append an item to a list in the team's shared memory.",
  context_keys: "List the keys of the team's shared memory.",
  finish: 'End your work with your result.',
};

function descriptor(name: ToolName, description: string, schema: z.ZodType): ToolDescriptor {
  return {
    id: name,
    server: 'team',
    name,
    description,
    inputSchema: z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>,
    annotations: { readOnlyHint: name === 'read_context' || name === 'context_keys' || name === 'check_messages' },
  };
}

const DESCRIPTORS: Record<ToolName, ToolDescriptor> = Object.fromEntries(
  (Object.keys(SCHEMAS) as ToolName[]).map((name) => [name, descriptor(name, DESCRIPTIONS[name], SCHEMAS[name])]),
) as Record<ToolName, ToolDescriptor>;

/**
 * The root manager's finish (manager-answer.ts): its result is the answer the user reads, sent as it
 * stands when the team succeeded and the verifier had nothing to add. Same arguments as every finish.
 */
const ANSWER_FINISH = descriptor(
  'finish',
  "End the team's work with the answer to the user's request: the user reads your result as Parley's answer.",
  z.object({
    result: z.string().describe("The answer to the user's request, in full, written for the user"),
  }),
);

/** What the root manager is told its finish result is: how the synthesizer is told to write an answer. */
const ANSWER_NOTE =
  ` Your finish result is the answer the user reads. Write it for the user, who never saw the team: do not mention` +
  ` agents, their ids, their messages or the team memory unless the request asks how the work was done.` +
  ` Do not add a list of sources at the end: Parley sends the sources with the answer. Do not invent facts` +
  ` your agents' results do not support, and say in plain words what is missing when a part could not be done.`;

/** What the tool loop of a team agent calls. */
export interface AgentHooks {
  tools: ToolDescriptor[];
  maxIterations: number;
  /** The system prompt's part about the team. */
  note: string;
  owns(toolId: string): boolean;
  call(toolId: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
  /** Before each turn: what to tell the agent (its agents' results, messages), after waiting for the awaited ones. */
  nextTurn(signal: AbortSignal): Promise<string | undefined>;
  /** Set once the agent called finish. */
  result(): string | undefined;
  /** When the agent ends: waits for the agents it spawned. */
  settle(signal: AbortSignal): Promise<void>;
}

export function agentHooks(
  run: RunState,
  team: Team,
  stepId: string,
  clock?: StepClock,
  /** The tools each candidate specialist has (a manager is told, so it never gives a part to one that cannot do it). */
  toolsOf?: (specialistId: string) => ToolKinds | undefined,
): AgentHooks {
  const { maxDepth, maxIterations } = team.limits;
  const depth = team.depthOf(stepId);
  const role = team.roleOf(stepId);
  const manages = role === 'manager' && depth < maxDepth;
  // Only a manager spawns, and only where depth allows (a worker offered spawn_agent was told both: a review found it).
  const names = (Object.keys(SCHEMAS) as ToolName[]).filter((n) => n !== 'spawn_agent' || manages);
  const parent = team.parentOf(stepId);
  const info = {
    agent: stepId,
    role,
    depth,
    maxDepth,
    ...(parent ? { parent } : {}),
    agents: team.others(stepId),
  };
  const answers = rootManagerOf(run.plan!) === stepId;
  // The blocks are named without their tags here: the scripted model reads the first tag it finds in a message.
  const note =
    `\n\nYou are agent "${stepId}" of a team (${role}, depth ${depth} of at most ${maxDepth}${parent ? `, spawned by ${parent}` : ''}).` +
    ` Your team tools: ${names.join(', ')}. Messages reach you as "[Message from <id>] …", and the results of the agents you spawn before your next turn.` +
    (answers ? ANSWER_NOTE : ` Call finish with your result when your part is done.`) +
    ` The parley:team block below says who you are: "agent" (your id), "role", "depth" and "maxDepth" (how deep the team may grow),` +
    ` "parent" (the agent that spawned you, if any) and "agents" (the other agents of the team).` +
    (manages
      ? ` The parley:specialists block lists the specialists spawn_agent may name: "id", "kind" ("prompt": a model with its own` +
        ` instructions and tools; "mcp": a model that operates one MCP server's tools; "a2a": a remote agent), "description",` +
        ` "domains", "tools" (its tools: "readOnly" look things up, "changes" write or delete; none listed: it has no tools and` +
        ` works from what its model knows, so it cannot look anything up), "relevance" to the request (0..1) and, when present,` +
        ` "record" of earlier runs. Give each agent a "name" for its role in the work.`
      : '') +
    `\n${block('team', JSON.stringify(info))}` +
    (manages ? `\n${specialistsBlock(run.candidates, [], toolsOf)}` : '');
  return {
    tools: names.map((n) => (n === 'finish' && answers ? ANSWER_FINISH : DESCRIPTORS[n])),
    maxIterations,
    note,
    owns: (toolId) => names.includes(toolId as ToolName),
    call: (toolId, args, signal) => callTeamTool(team, stepId, toolId as ToolName, args, signal, clock),
    nextTurn: (signal) => team.nextTurn(stepId, signal, clock),
    result: () => team.resultOf(stepId),
    settle: (signal) => team.settle(stepId, signal, clock),
  };
}

async function callTeamTool(
  team: Team,
  stepId: string,
  name: ToolName,
  raw: Record<string, unknown>,
  signal: AbortSignal,
  clock?: StepClock,
): Promise<string> {
  const parsed = SCHEMAS[name].safeParse(raw);
  if (!parsed.success) return `Error: invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`;
  const args = parsed.data as Record<string, unknown>;
  switch (name) {
    case 'spawn_agent':
      return team.spawn(stepId, args as z.output<typeof SCHEMAS.spawn_agent>);
    case 'send_message':
      return team.send(stepId, args.to as string, args.content as string);
    case 'broadcast':
      return team.broadcast(stepId, args.content as string);
    case 'check_messages':
      return team.checkMessages(stepId, args as z.output<typeof SCHEMAS.check_messages>, signal, clock);
    case 'read_context':
      return team.readContext(args.key as string);
    case 'write_context':
      return team.writeContext(stepId, args.key as string, args.value, false);
    case 'append_context':
      return team.writeContext(stepId, args.key as string, args.item, true);
    case 'context_keys':
      return team.contextKeys();
    case 'finish':
      return team.finish(stepId, args.result as string);
  }
}
