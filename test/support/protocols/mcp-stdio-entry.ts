/**
 * A `parley mcp`-equivalent process for the stdio test: the real engine from createTestParley
 * (with the fixture MCP server over stdio as its tool host) served by serveMcpStdio on this
 * process's stdin/stdout. Run as: node --import tsx test/support/protocols/mcp-stdio-entry.ts
 * MCP_TEST_READER=1 adds the reader (citing.ts) to the noter.
 */
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../../src/log.ts';
import { serveMcpStdio } from '../../../src/protocols/mcp/index.ts';
import { createTestParley } from '../engine.ts';
import { NOTER } from './mcp-helpers.ts';
import { READER } from './citing.ts';

const fixture = fileURLToPath(new URL('../../fixtures/tools/stdio-server.ts', import.meta.url));
const parley = await createTestParley({
  roster: false,
  specialists: process.env.MCP_TEST_READER === '1' ? [NOTER, READER] : [NOTER],
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
