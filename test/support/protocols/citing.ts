/**
 * What the citation tests of every protocol share (issue 43: `citations: "numbered"` is a request
 * option): a specialist that reads a named file through the fixture MCP server's read_note, a query
 * that plans one step of it, and the provenance its answer carries as data. Plain data (no test
 * runner): the stdio server processes of the MCP tests import it too. The checks of the text are
 * citing-expect.ts.
 */

/** A specialist that reads notes through the fixture server's read_note (its `path` names the file). */
export const READER = {
  id: 'reader',
  name: 'reader',
  description: 'Reads note files and reports what they say',
  kind: 'prompt' as const,
  domains: ['notes', 'reading'],
  prompt: 'You read notes.',
  endpoint: '',
  modelRole: 'specialist' as const,
  tools: ['fx/read_note'],
  sourceId: 'skills:citations-test',
  available: true,
};

/**
 * A planned run of one reader step that reads notes/standup.md, whatever other specialists the
 * registry holds (the scripted model's directives: docs/scripted-model.md).
 */
export const READ_QUERY =
  'reader: read the standup notes [[route:plan]] [[steps:1]] [[planspecialist:reader]] [[verify:0.95]] ' +
  '[[tool:fx/read_note {"path":"notes/standup.md"}]]';

/** The one reference of READ_QUERY's answer, as data (docs/events.md AnswerReference). */
export const STANDUP_REFERENCE = { n: 1, kind: 'file', title: 'standup.md', uri: 'notes/standup.md', stepIds: ['s1'] };

/** The one source of READ_QUERY's answer, as data (docs/events.md run.finished `sources`). */
export const STANDUP_SOURCE = {
  stepId: 's1',
  specialist: 'reader',
  named: [{ kind: 'file', title: 'standup.md', uri: 'notes/standup.md' }],
};

/** A step id, bracketed or bare: an answer never names one. */
export const STEP_IDS = /\[s\d+\]|\bs1\b/;
