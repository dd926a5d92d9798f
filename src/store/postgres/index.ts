/**
 * Every Postgres store, behind one import that core.ts makes only when PARLEY_DATABASE_URL is set: a
 * process on the embedded store never loads the Postgres driver.
 */
export { openDatabase } from './open.ts';
export { permanentPostgresError } from './errors.ts';
export { openPostgresRunStore } from './run-store.ts';
export { createPostgresThreadStore } from './threads.ts';
export { createPostgresAcpSessionStore } from './acp-sessions.ts';
export { createPostgresA2aPushStore } from './a2a-push.ts';
export { createPostgresA2aTaskStore } from './a2a-tasks.ts';
export { createPostgresMcpEventStore } from './mcp-events.ts';
