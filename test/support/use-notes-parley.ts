/**
 * A TestParley with one prompt specialist, the notes keeper, whose tools are a real MCP server (the
 * fixture over Streamable HTTP, mounted as `notes`; its write_note is destructive, so it asks for
 * approval). Registers the hooks in the calling file or describe block, like useTestParley.
 */
import { afterAll, beforeAll } from 'vitest';
import { startFixtureHttpServer, type FixtureHttpServer } from '../fixtures/tools/http-server.ts';
import { notesKeeper } from './records.ts';
import { useTestParley } from './use-test-parley.ts';

export function useNotesParley(sourceId: string) {
  let server: FixtureHttpServer | undefined;
  beforeAll(async () => {
    server = await startFixtureHttpServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  const parley = useTestParley(() => ({
    roster: false,
    mcpServers: { notes: { url: server!.mcpUrl } },
    specialists: [notesKeeper(sourceId)],
  }));
  return {
    parley,
    /** The notes server (its state records every write); read it inside tests. */
    get mcp(): FixtureHttpServer {
      if (!server) throw new Error('useNotesParley: read mcp inside a test');
      return server;
    },
  };
}
