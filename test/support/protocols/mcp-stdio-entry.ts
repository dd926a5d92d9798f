/**
 * A `parley mcp`-equivalent process for the stdio test: the real engine from createTestParley
 * (with the fixture MCP server over stdio as its tool host) served by serveMcpStdio on this
 * process's stdin/stdout. Run as: node --import tsx test/support/protocols/mcp-stdio-entry.ts
 */
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../../src/log.ts';
import { serveMcpStdio } from '../../../src/protocols/mcp/index.ts';
import { createTestParley } from '../engine.ts';
import { NOTER } from './mcp-helpers.ts';

const fixture = fileURLToPath(new URL('../../fixtures/tools/stdio-server.ts', import.meta.url));
const parley = await createTestParley({
  roster: false,
  specialists: [NOTER],
  mcpServers: {
    fx: {
      command: process.execPath,
      args: ['--import', 'tsx', fixture],
      env: { FIXTURE_LOG: process.env.FIXTURE_LOG ?? '' },
    },
  },
});
const served = await serveMcpStdio({
  engine: parley.engine,
  store: parley.store,
  logger: silentLogger,
});
await served.closed;
await parley.close();
process.exit(0);
