/** The POST /stream body: the query, an optional thread, and the shared run options. */
import { z } from 'zod';
import { RunOptionsSchema } from '../shared/run-options.ts';

export const StreamBodySchema = RunOptionsSchema.extend({
  query: z.string().trim().min(1, 'must be a non-empty string'),
  threadId: z.string().min(1).max(200).optional(),
}).strict();
export type StreamBody = z.infer<typeof StreamBodySchema>;
