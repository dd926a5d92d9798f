/**
 * The Postgres schema, as numbered migrations applied in order (migrate.ts). A migration is never
 * edited once released: a change is a new entry. Payloads are JSONB (plain data the engine writes);
 * only the fields a query filters or orders on are columns, each with the index it needs.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'run store: runs, checkpoints, event logs, approvals',
    sql: `
      CREATE TABLE parley_runs (
        id text PRIMARY KEY,
        status text NOT NULL,
        updated_at bigint NOT NULL,
        record jsonb NOT NULL
      );
      CREATE INDEX parley_runs_unfinished ON parley_runs (id) WHERE status = 'running';
      CREATE INDEX parley_runs_finished ON parley_runs (updated_at) WHERE status <> 'running';

      CREATE TABLE parley_run_plans (
        run_id text PRIMARY KEY,
        round integer NOT NULL,
        plan jsonb
      );
      CREATE TABLE parley_run_steps (
        run_id text NOT NULL,
        step_id text NOT NULL,
        step jsonb NOT NULL,
        PRIMARY KEY (run_id, step_id)
      );

      CREATE TABLE parley_run_events (
        run_id text NOT NULL,
        seq integer NOT NULL,
        event jsonb NOT NULL,
        PRIMARY KEY (run_id, seq)
      );

      CREATE TABLE parley_run_approvals (
        id text PRIMARY KEY,
        run_id text NOT NULL,
        status text NOT NULL,
        approval jsonb NOT NULL
      );
      CREATE INDEX parley_run_approvals_run ON parley_run_approvals (run_id);
      CREATE INDEX parley_run_approvals_pending ON parley_run_approvals (id) WHERE status = 'pending';
    `,
  },
  {
    version: 2,
    name: 'threads and their turns',
    sql: `
      CREATE TABLE parley_threads (
        caller_id text NOT NULL,
        thread_id text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        turn_count integer NOT NULL,
        title text NOT NULL,
        next_seq integer NOT NULL,
        PRIMARY KEY (caller_id, thread_id)
      );
      CREATE INDEX parley_threads_updated ON parley_threads (caller_id, updated_at);
      CREATE TABLE parley_thread_turns (
        caller_id text NOT NULL,
        thread_id text NOT NULL,
        seq integer NOT NULL,
        turn jsonb NOT NULL,
        PRIMARY KEY (caller_id, thread_id, seq),
        FOREIGN KEY (caller_id, thread_id) REFERENCES parley_threads (caller_id, thread_id) ON DELETE CASCADE
      );
    `,
  },
  {
    version: 3,
    name: 'ACP sessions; A2A push configs and outbox',
    sql: `
      CREATE TABLE parley_acp_sessions (
        caller_id text NOT NULL,
        session_id text NOT NULL,
        cwd text NOT NULL,
        updated_at bigint NOT NULL,
        record jsonb NOT NULL,
        PRIMARY KEY (caller_id, session_id)
      );
      CREATE INDEX parley_acp_sessions_updated ON parley_acp_sessions (caller_id, updated_at);

      CREATE TABLE parley_a2a_push_configs (
        tenant text NOT NULL,
        owner text NOT NULL,
        task_id text NOT NULL,
        config_id text NOT NULL,
        config jsonb NOT NULL,
        PRIMARY KEY (tenant, owner, task_id, config_id)
      );
      CREATE TABLE parley_a2a_push_outbox (
        seq bigserial PRIMARY KEY,
        tenant text NOT NULL,
        owner text NOT NULL,
        task_id text NOT NULL,
        config_id text NOT NULL,
        delivery jsonb NOT NULL
      );
      CREATE INDEX parley_a2a_push_outbox_task ON parley_a2a_push_outbox (tenant, owner, task_id, config_id);
    `,
  },
  {
    version: 4,
    name: 'A2A tasks',
    sql: `
      CREATE TABLE parley_a2a_tasks (
        tenant text NOT NULL,
        owner text NOT NULL,
        id text NOT NULL,
        context_id text NOT NULL,
        state text NOT NULL,
        status_ts text NOT NULL,
        status_ms bigint,
        terminal boolean NOT NULL,
        task jsonb NOT NULL,
        run_seq integer,
        finished_seq bigint,
        PRIMARY KEY (tenant, owner, id)
      );
      CREATE INDEX parley_a2a_tasks_order ON parley_a2a_tasks (tenant, owner, status_ts COLLATE "C" DESC, id COLLATE "C" DESC);
      CREATE INDEX parley_a2a_tasks_finished ON parley_a2a_tasks (finished_seq) WHERE finished_seq IS NOT NULL;
      CREATE INDEX parley_a2a_tasks_unfinished ON parley_a2a_tasks (tenant, owner, id) WHERE NOT terminal;
      CREATE SEQUENCE parley_a2a_finished_seq;
    `,
  },
  {
    version: 5,
    name: 'MCP Streamable HTTP events',
    sql: `
      CREATE TABLE parley_mcp_events (
        stream_id text NOT NULL,
        seq bigserial NOT NULL,
        at bigint NOT NULL,
        message jsonb NOT NULL,
        PRIMARY KEY (stream_id, seq)
      );
      CREATE INDEX parley_mcp_events_at ON parley_mcp_events (at);
    `,
  },
  {
    version: 6,
    name: 'MCP session records (a session served by any replica)',
    sql: `
      CREATE TABLE parley_mcp_sessions (
        id text PRIMARY KEY,
        caller_id text NOT NULL,
        initialize jsonb NOT NULL,
        at bigint NOT NULL
      );
      CREATE INDEX parley_mcp_sessions_at ON parley_mcp_sessions (at);
    `,
  },
];
