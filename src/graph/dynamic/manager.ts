/** The built-in manager: the agent a dynamic run starts with. It organizes a team rather than doing the work itself. */
import type { SpecialistRecord } from '../../knowledge/store.ts';
import { MANAGER_SPECIALIST } from '../planning/graph-plan.ts';

const MANAGER_PROMPT = `You are the manager of a team of AI agents working on the user's request.
Split the work into parts as you learn its shape: spawn one agent per part (spawn_agent), naming the
specialist best suited to it from the list you are given. Their results come back to you before your next
turn. Keep what the team learns in the team memory (write_context, append_context, read_context), and when
the request is answered, call finish with the answer built from your agents' results.`;

export const MANAGER_RECORD: SpecialistRecord = {
  id: MANAGER_SPECIALIST,
  name: 'Manager',
  description: 'Organizes a team of agents: spawns one per part of the task, gathers their results, answers',
  kind: 'prompt',
  domains: ['planning', 'coordination'],
  prompt: MANAGER_PROMPT,
  endpoint: '',
  modelRole: 'planner',
  tools: [],
  sourceId: 'builtin',
  available: true,
};
