/** The runs a prompt review drives (docs/prompt-reviews/README.md): one or more turns each, sent to POST /stream. */
import type { RunMode } from '../../src/graph/run/request.ts';

export interface Turn {
  query: string;
  mode?: RunMode;
  /** Send the threadId the previous turn's run.started announced (a follow-up on the same conversation). */
  continueThread?: boolean;
}

export interface Scenario {
  /** What the scenario exercises, for the transcript's heading. */
  about: string;
  turns: Turn[];
}

export const SCENARIOS: Record<string, Scenario> = {
  plain: {
    about: 'a plain comparison question (mode auto)',
    turns: [
      { query: 'Compare Raft and Paxos for a small team building a replicated config store; which should we pick?' },
    ],
  },
  tools: {
    about: 'a planned task that writes a file into the workspace, so a tool call needs an approval (mode auto)',
    turns: [
      {
        query:
          'Write a short design note to notes/cache-design.md in the workspace describing a caching layer for our TypeScript API.',
      },
    ],
  },
  council: {
    about: 'a decision put to the council (mode council)',
    turns: [{ query: 'Should we move our monolith to microservices this year?', mode: 'council' }],
  },
  followup: {
    about: "a follow-up turn on the first run's thread (the second turn sends the threadId run.started announced)",
    turns: [
      { query: 'Sketch a schema for a job queue on Postgres.' },
      { query: 'Now make the sketch use Redis instead of Postgres.', continueThread: true },
    ],
  },
  runbook: {
    about: 'a multi-part operational task with a requested form (mode auto)',
    turns: [
      {
        query:
          'Our Redis primary just failed over to a replica and the API is throwing timeouts. Give me an on-call runbook: what to check first, the commands to run, when to escalate, and a short checklist at the end.',
      },
    ],
  },
  dynamic: {
    about: 'a task for a dynamic team (mode dynamic)',
    turns: [
      {
        query:
          'Plan the migration of our user-sessions service from a single Postgres instance to a managed Postgres cluster: research the options, write the cut-over runbook, and review it for risks.',
        mode: 'dynamic',
      },
    ],
  },
};
