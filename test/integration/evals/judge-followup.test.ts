/**
 * A follow-up case of an evaluation suite, judged: `runSuite` runs the case's earlier turns on one thread,
 * then its query, and the judge's request carries the earlier questions in its parley:earlier_turns block
 * (src/eval/judge.ts), so a rubric about "it" or "the same schema" can be graded. Real server
 * (createParley), the built-in scripted model, its request log read for what each model call was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSuite } from '../../../src/eval/run-suite.ts';
import { parseSuite } from '../../../src/eval/suite.ts';
import { join } from 'node:path';
import { EMPTY_MCP_CONFIG, startShippedParley, type ShippedParley } from '../../support/server.ts';

let server: ShippedParley;

beforeAll(async () => {
  server = await startShippedParley({ PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const EARLIER = ['Design the schema for invoices', 'Add a currency column to it'];
const SUITE = `
name: follow-up judged
cases:
  - id: followup-judged
    thread:
${EARLIER.map((q) => `      - ${q}`).join('\n')}
    query: Now write the API docs for that schema
    mode: direct
    checks:
      - judge: The answer documents an API for "invoices".
        score: 0
`;

describe("a follow-up case's judge", () => {
  it('reads the earlier questions of the thread, in order, beside the query, the answer and the rubric', async () => {
    const log = server.parley.scripted!.requests;
    log.length = 0;
    const [outcome] = await runSuite(parseSuite(SUITE, 'judge-followup.yaml'), {
      engine: server.parley.engine,
      approvals: server.parley.approvals,
      model: server.parley.model,
      workspace: join(server.dataDir, 'workspace'),
    });
    expect(outcome, JSON.stringify(outcome?.checks)).toMatchObject({ id: 'followup-judged', status: 'completed' });
    expect(outcome!.judgeUsage.calls).toBe(1);

    const judged = log.filter((r) => r.schemaName === 'judgement');
    expect(judged).toHaveLength(1);
    const request = judged[0]!;
    expect(request.runId).toBe(outcome!.runId);
    expect(request.lastUserMessage).toContain(
      `<parley:earlier_turns>${JSON.stringify(EARLIER)}</parley:earlier_turns>`,
    );
    expect(request.lastUserMessage).toContain('<parley:query>Now write the API docs for that schema</parley:query>');
    // Earlier turns come after the query they explain, before the answer being judged.
    const text = request.lastUserMessage;
    expect(text.indexOf('<parley:query>')).toBeLessThan(text.indexOf('<parley:earlier_turns>'));
    expect(text.indexOf('<parley:earlier_turns>')).toBeLessThan(text.indexOf('<parley:answer>'));

    // The case's own run was a follow-up too: its model call saw the earlier questions of the thread.
    const own = log.filter((r) => r.runId === outcome!.runId && r.schemaName !== 'judgement');
    expect(own.length).toBeGreaterThan(0);
    const seen = JSON.stringify(own.map((r) => r.body));
    for (const q of EARLIER) expect(seen).toContain(q);
  });
});
