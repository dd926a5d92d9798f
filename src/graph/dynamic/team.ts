/**
 * Team: the living part of a dynamic or hybrid run (docs/engine.md "Dynamic teams"). Its agents are
 * plan steps run by the one scheduler; the team adds the steps they spawn to the running batch, carries
 * their messages and their shared memory, makes a spawner wait for its agents, and ends the run when
 * every running agent waits on something that can never come (deadlock.ts).
 */
import { MANAGER_SPECIALIST, type PlanStep } from '../planning/graph-plan.ts';
import type { ScheduleGrowth, StepClock, StepOutcome } from '../planning/scheduler.ts';
import { emit, type EngineContext, type RunState } from '../run/state.ts';
import type { AgentRole } from '../run/events.ts';
import { RunFailedError } from '../run/outcome.ts';
import { findDeadlock, type AgentWait } from './deadlock.ts';
import { appendKey, emptyTeamMemory, writeKey } from './team-memory.ts';
import { pickSpecialist } from './pick-specialist.ts';
import { fitPieces } from '../prompting/context-budget.ts';
import { summarizedNote } from '../prompting/prompts.ts';

export class DeadlockError extends RunFailedError {
  override name = 'DeadlockError';
}

/** What an agent asks for when it spawns one. */
export interface SpawnRequest {
  task: string;
  /** The agent's role in a few words ("licence checker"): its id is made from it (default: its specialist's id). */
  name?: string;
  role: AgentRole;
  specialist?: string;
  model?: string;
  /** false: the spawner goes on at once; the agent's result reaches it as a message. */
  wait: boolean;
  /** PlanStep.changes: false offers the agent only read-only tools; unset, every tool of its specialist. */
  changes?: boolean;
}

interface Member {
  id: string;
  parent?: string;
  depth: number;
  role: AgentRole;
  children: string[];
  /** Children it does not wait for: their results come as messages. */
  detached: Set<string>;
  /** Children whose results it has been shown. */
  reported: Set<string>;
  inbox: { from: string; text: string }[];
  outcome?: StepOutcome;
  /** Set by finish(result). */
  result?: string;
  /** Re-checks the agent's wait (set while it waits). */
  wake?: () => void;
}

/**
 * Model calls a spawn must leave room for besides the new agent's first turn and each running agent's
 * next one: the spawner's turn after it sees the results, then the verifier and the synthesizer.
 */
const CALLS_BEYOND_AGENTS = 3;
const MAX_INBOX = 100;
const MAX_MESSAGE_CHARS = 8000;

const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);
export const preview = (value: unknown): string =>
  clip(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 200);

/** Each run's team, beside the run rather than on it: the team holds the run, so RunState need not know Team. */
const TEAMS = new WeakMap<RunState, Team>();

/** The run's dynamic team, once its plan has a manager step (dynamic and hybrid runs). */
export function teamOf(run: RunState): Team | undefined {
  return TEAMS.get(run);
}

/** The run's team, made on the first batch whose plan has an agent step. */
export function teamFor(run: RunState, ctx: EngineContext): Team {
  let team = TEAMS.get(run);
  if (!team) TEAMS.set(run, (team = new Team(run, ctx)));
  return team;
}

export class Team {
  readonly #run: RunState;
  readonly #ctx: EngineContext;
  readonly #members = new Map<string, Member>();
  readonly #running = new Set<string>();
  readonly #waits = new Map<string, AgentWait>();
  readonly memory = emptyTeamMemory();
  #growth?: ScheduleGrowth;
  /** Agents spawned in the current turn of their spawner: they start together when it ends (startSpawned). */
  #unstarted: PlanStep[] = [];

  constructor(run: RunState, ctx: EngineContext) {
    this.#run = run;
    this.#ctx = ctx;
  }

  /** A step is an agent of the team when it is a manager or was spawned. */
  static isAgent(step: PlanStep): boolean {
    return step.manager === true || step.parentStepId !== undefined;
  }

  get limits(): EngineContext['config']['engine']['dynamic'] {
    return this.#ctx.config.engine.dynamic;
  }

  /** The scheduler batch now running: spawned steps join it. */
  attach(growth: ScheduleGrowth): void {
    this.#growth = growth;
  }

  /** Whether the step is an agent of the team (joined when it started or was spawned). */
  has(id: string): boolean {
    return this.#members.has(id);
  }

  depthOf(id: string): number {
    return this.#members.get(id)?.depth ?? 0;
  }

  roleOf(id: string): AgentRole {
    return this.#members.get(id)?.role ?? 'worker';
  }

  parentOf(id: string): string | undefined {
    return this.#members.get(id)?.parent;
  }

  /** Agents of the run other than `id`, with what each does (for an agent's prompt). */
  others(id: string): { id: string; role: AgentRole; parent?: string; running: boolean }[] {
    return [...this.#members.values()]
      .filter((m) => m.id !== id)
      .map((m) => ({ id: m.id, role: m.role, ...(m.parent ? { parent: m.parent } : {}), running: !m.outcome }));
  }

  started(step: PlanStep): void {
    this.#running.add(step.id);
    if (Team.isAgent(step) && !this.#members.has(step.id)) this.#join(step);
  }

  finished(outcome: StepOutcome): void {
    this.#running.delete(outcome.stepId);
    const member = this.#members.get(outcome.stepId);
    if (member) {
      member.outcome = outcome;
      member.wake = undefined;
      const parent = member.parent ? this.#members.get(member.parent) : undefined;
      if (parent?.detached.has(member.id)) {
        parent.inbox.push({
          from: member.id,
          text: `[Message from ${member.id}] ${outcome.specialist}, ${outcome.status}: ${resultText(outcome)}`,
        });
        parent.reported.add(member.id);
      }
      parent?.wake?.();
    }
    // A wait on this agent can never end now; the steps it unblocked are queued by the time this runs.
    this.#checkDeadlockSoon();
  }

  spawn(parentId: string, request: SpawnRequest): string {
    const run = this.#run;
    const parent = this.#members.get(parentId)!;
    const { maxDepth, maxNodes, nodeTimeoutMs } = this.limits;
    const refuse = (why: string) => {
      this.#ctx.logger.info('dynamic team: spawn refused', { runId: run.id, stepId: parentId, reason: why });
      return `Error: spawn refused: ${why}`;
    };
    // A worker does its task itself (spawn_agent's "role"); it is not offered spawn_agent (agent-tools.ts).
    if (parent.role === 'worker') return refuse('you are a worker: do this part yourself.');
    if (parent.depth + 1 > maxDepth)
      return refuse(
        `you are at depth ${parent.depth} and agents spawn down to depth ${maxDepth} at most; do this part yourself.`,
      );
    const plan = run.plan!;
    if (plan.steps.length >= maxNodes)
      return refuse(`the run has ${plan.steps.length} steps, the most one run may have (${maxNodes}).`);
    const specialist = this.#specialistFor(request);
    if (typeof specialist !== 'string') return refuse(specialist.error);
    const room = this.#budgetRoom();
    if (room) return refuse(`the run's budget: ${room}.`);

    const id = agentId(plan, request.name ?? (specialist === MANAGER_SPECIALIST ? 'team lead' : specialist), parent);
    const step: PlanStep = {
      id,
      specialist,
      objective: request.task,
      dependsOn: [],
      phase: 'execution',
      timeoutMs: nodeTimeoutMs,
      parentStepId: parentId,
      ...(request.role === 'manager' ? { manager: true } : {}),
      ...(request.model ? { model: request.model } : {}),
      ...(request.changes !== undefined ? { changes: request.changes } : {}),
    };
    run.plan = { ...plan, steps: [...plan.steps, step] };
    run.pending.add(id);
    this.#join(step);
    parent.children.push(id);
    if (!request.wait) parent.detached.add(id);
    emit(run, {
      type: 'step.spawned',
      stepId: id,
      parentStepId: parentId,
      specialist,
      objective: request.task,
      role: request.role,
      ...(request.model ? { model: request.model } : {}),
    });
    // Started when the spawner's turn ends, so agents spawned together all know each other (Team.others).
    this.#unstarted.push(step);
    return request.wait
      ? `Spawned agent "${id}" (${request.role}, specialist ${specialist}). Its result comes to you before your next turn.`
      : `Spawned agent "${id}" (${request.role}, specialist ${specialist}). You go on at once; its result comes to you as a message.`;
  }

  /**
   * Before an agent's next turn: waits for the children it waits on (its clock paused, its scheduler
   * slot given up), then returns what it has not yet seen: their results, and the messages sent to it.
   */
  async nextTurn(id: string, signal: AbortSignal, clock?: StepClock): Promise<string | undefined> {
    this.startSpawned();
    const member = this.#members.get(id)!;
    const awaited = () => member.children.filter((c) => !member.detached.has(c) && !this.#members.get(c)?.outcome);
    if (awaited().length)
      await this.#block(
        id,
        () => ({ kind: 'children', on: awaited() }),
        () => awaited().length === 0,
        signal,
        clock,
      );
    const done = member.children.filter((c) => !member.reported.has(c) && this.#members.get(c)?.outcome);
    for (const c of done) member.reported.add(c);
    const results = done.map((c) => {
      const outcome = this.#members.get(c)!.outcome!;
      return {
        stepId: c,
        head: `[Result from ${c}] ${outcome.specialist}, ${outcome.status}`,
        text: resultText(outcome),
      };
    });
    const messages = member.inbox.splice(0).map((m) => ({ stepId: m.from, head: '', text: m.text }));
    // Whole, unless together they would not fit the agent's model: then the largest are summarized, and say so.
    const all = [...results, ...messages];
    const fitted = await fitPieces(this.#run, this.#ctx, { role: 'specialist' }, [this.#run.request.query], all);
    const parts = fitted.map((p, i) => {
      const { head } = all[i]!;
      const note = p.summarized ? `(${summarizedNote(p.summarized.originalChars)})` : '';
      return head ? `${head}${note ? ` ${note}` : ''}: ${p.text}` : `${note ? `${note} ` : ''}${p.text}`;
    });
    return parts.length ? parts.join('\n\n') : undefined;
  }

  /** When an agent ends: it waits for every agent it spawned (detached ones too), so none outlives it. */
  async settle(id: string, signal: AbortSignal, clock?: StepClock): Promise<void> {
    this.startSpawned();
    const member = this.#members.get(id)!;
    const running = () => member.children.filter((c) => !this.#members.get(c)?.outcome);
    if (running().length)
      await this.#block(
        id,
        () => ({ kind: 'children', on: running() }),
        () => running().length === 0,
        signal,
        clock,
      );
  }

  /** Starts the agents spawned since the last call (at the end of a spawner's turn, and before anyone waits). */
  startSpawned(): void {
    for (const step of this.#unstarted.splice(0)) this.#growth!.add(step);
  }

  finish(id: string, result: string): string {
    const member = this.#members.get(id)!;
    member.result = result;
    // A planned agent has no spawner: its result goes on to the verifier and the answer (manager-answer.ts).
    return member.parent
      ? 'Finished: your result goes to whoever spawned you.'
      : 'Finished: your result goes to the verifier and into the answer.';
  }

  resultOf(id: string): string | undefined {
    return this.#members.get(id)?.result;
  }

  send(from: string, to: string, content: string): string {
    const target = this.#members.get(to);
    if (to === from) return 'Error: that is you; send the message to another agent.';
    if (!target)
      return `Error: there is no agent "${to}". Agents of this run: ${[...this.#members.keys()].join(', ')}.`;
    if (target.outcome) return `Error: agent "${to}" has finished and reads no more messages.`;
    const problem = this.#deliver(target, from, content);
    if (problem) return problem;
    emit(this.#run, { type: 'message.sent', from, to, preview: preview(content) });
    return `Message sent to ${to}.`;
  }

  broadcast(from: string, content: string): string {
    const targets = [...this.#members.values()].filter((m) => m.id !== from && !m.outcome);
    if (targets.length === 0) return 'No other agent is running; nobody received the message.';
    for (const target of targets) {
      const problem = this.#deliver(target, from, content);
      if (problem) return problem;
    }
    emit(this.#run, { type: 'message.sent', from, to: '*', preview: preview(content) });
    return `Message sent to ${targets.map((t) => t.id).join(', ')}.`;
  }

  async checkMessages(
    id: string,
    options: { wait: boolean; from?: string },
    signal: AbortSignal,
    clock?: StepClock,
  ): Promise<string> {
    const member = this.#members.get(id)!;
    const matches = (m: { from: string }) => options.from === undefined || m.from === options.from;
    if (options.wait && !member.inbox.some(matches))
      await this.#block(
        id,
        () => ({ kind: 'message', ...(options.from !== undefined ? { from: options.from } : {}) }),
        () => member.inbox.some(matches),
        signal,
        clock,
      );
    const taken = member.inbox.filter(matches);
    member.inbox = member.inbox.filter((m) => !matches(m));
    return taken.length ? taken.map((m) => m.text).join('\n') : 'No messages.';
  }

  readContext(key: string): string {
    const value = this.memory.values.get(key);
    return value === undefined ? `No value under "${key}".` : JSON.stringify(value);
  }

  writeContext(id: string, key: string, value: unknown, append: boolean): string {
    const problem = append ? appendKey(this.memory, key, value) : writeKey(this.memory, key, value);
    if (problem) return `Error: ${problem}; the team memory is unchanged.`;
    emit(this.#run, { type: 'context.written', stepId: id, key, preview: preview(value) });
    return append ? `Appended to "${key}".` : `Wrote "${key}".`;
  }

  contextKeys(): string {
    const keys = [...this.memory.values.keys()];
    return keys.length ? JSON.stringify(keys) : 'The team memory is empty.';
  }

  /**
   * Before a verifier's re-run: a failed spawned step is re-run through the planned step it grew
   * from, whose spawned agents are dropped (it spawns them again). Returns the step ids to re-run.
   */
  rerunRoots(failed: Set<string>): Set<string> {
    const run = this.#run;
    const plan = run.plan!;
    const byId = new Map(plan.steps.map((s) => [s.id, s]));
    const rootOf = (id: string): string => {
      let step = byId.get(id);
      while (step?.parentStepId && byId.has(step.parentStepId)) step = byId.get(step.parentStepId);
      return step?.id ?? id;
    };
    const roots = new Set([...failed].map(rootOf));
    const dropped = plan.steps.filter((s) => s.parentStepId !== undefined && roots.has(rootOf(s.id)));
    if (dropped.length) {
      const gone = new Set(dropped.map((s) => s.id));
      run.plan = { ...plan, steps: plan.steps.filter((s) => !gone.has(s.id)) };
      for (const id of gone) {
        run.results.delete(id);
        this.#members.delete(id);
      }
    }
    for (const id of roots) this.#members.delete(id);
    return roots;
  }

  #join(step: PlanStep): void {
    const parent = step.parentStepId ? this.#members.get(step.parentStepId) : undefined;
    this.#members.set(step.id, {
      id: step.id,
      ...(step.parentStepId ? { parent: step.parentStepId } : {}),
      depth: parent ? parent.depth + 1 : 0,
      role: step.manager ? 'manager' : 'worker',
      children: [],
      detached: new Set(),
      reported: new Set(),
      inbox: [],
    });
  }

  #deliver(target: Member, from: string, content: string): string | undefined {
    if (content.length > MAX_MESSAGE_CHARS) return `Error: a message is at most ${MAX_MESSAGE_CHARS} characters.`;
    if (target.inbox.length >= MAX_INBOX)
      return `Error: agent "${target.id}" has ${MAX_INBOX} unread messages; it reads no more until it catches up.`;
    target.inbox.push({ from, text: `[Message from ${from}] ${content}` });
    target.wake?.();
    return undefined;
  }

  #specialistFor(request: SpawnRequest): string | { error: string } {
    const run = this.#run;
    if (request.specialist === undefined)
      return request.role === 'manager'
        ? MANAGER_SPECIALIST
        : (pickSpecialist(run, request.task)?.id ?? { error: 'no specialist is available to run the agent' });
    if (request.specialist === MANAGER_SPECIALIST) return MANAGER_SPECIALIST;
    const found = run.specialists.get(request.specialist);
    if (found?.available) return found.id;
    const available = [...run.specialists.values()].filter((s) => s.available).map((s) => s.id);
    return {
      error: `${found ? 'specialist is unavailable' : 'unknown specialist'} "${request.specialist}" (available: ${[MANAGER_SPECIALIST, ...available].join(', ')})`,
    };
  }

  /** Why the run's budget has no room for another agent, or undefined. */
  #budgetRoom(): string | undefined {
    const running = [...this.#members.values()].filter((m) => !m.outcome).length;
    return this.#run.meter.roomFor(running + 1 + CALLS_BEYOND_AGENTS);
  }

  /**
   * Parks an agent until `done()` (re-checked on each wake), or its signal aborts. Meanwhile its clock is
   * paused and its scheduler slot given up; the wait is visible to the deadlock check.
   */
  #block(
    id: string,
    waitOf: () => AgentWait,
    done: () => boolean,
    signal: AbortSignal,
    clock: StepClock | undefined,
  ): Promise<void> {
    this.startSpawned();
    const member = this.#members.get(id)!;
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const end = () => {
        this.#waits.delete(id);
        member.wake = undefined;
        signal.removeEventListener('abort', onAbort);
        this.#growth?.unblock();
        clock?.resume();
      };
      const onAbort = () => {
        end();
        reject(signal.reason as Error);
      };
      member.wake = () => {
        if (!done()) return void this.#waits.set(id, waitOf());
        end();
        resolve();
      };
      this.#waits.set(id, waitOf());
      this.#growth?.block();
      clock?.pause();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#checkDeadlockSoon();
    });
  }

  #checkDeadlockSoon(): void {
    queueMicrotask(() => {
      const run = this.#run;
      if (run.abort.signal.aborted || this.#waits.size === 0) return;
      const found = findDeadlock({
        running: [...this.#running],
        waits: this.#waits,
        queued: this.#growth?.queued ?? 0,
      });
      if (!found) return;
      this.#ctx.logger.warn('dynamic team: deadlock', { runId: run.id, reason: found });
      run.abort.abort(new DeadlockError(found));
    });
  }
}

/**
 * An agent's id, from its role's name: "licence-checker". The root manager's agents are named by it alone,
 * a deeper manager's prefixed by their spawner's id (so parallel managers never race for a name); a name
 * taken already gets -2, -3 (a spawner spawns one agent at a time, so the order is its own).
 */
function agentId(plan: { steps: PlanStep[] }, name: string, parent: Member): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'agent';
  const base = parent.depth > 0 ? `${parent.id}-${slug}` : slug;
  const taken = (id: string) => plan.steps.some((s) => s.id === id);
  if (!taken(base)) return base;
  let n = 2;
  while (taken(`${base}-${n}`)) n++;
  return `${base}-${n}`;
}

function resultText(outcome: StepOutcome): string {
  return outcome.status === 'succeeded' ? (outcome.output ?? '') : (outcome.error ?? outcome.status);
}
