/**
 * Structured-output schemas of the engine's model calls, by the schemaName each is sent under. The
 * descriptions travel in the JSON schema; each role's system prompt explains the same fields.
 */
import { z } from 'zod';

/** schemaName `route`: how the run answers (nodes/router.ts ROUTER_SYSTEM explains every value). */
export const RouteSchema = z.object({
  route: z
    .enum(['direct', 'plan', 'council', 'dynamic'])
    .describe('direct: one call answers; plan: specialists and tools; council: a decision; dynamic: a team that grows'),
  reason: z.string().describe('One sentence on why this route fits; shown to the user'),
});

/** schemaName `verification`. */
export const VerificationSchema = z.object({
  score: z.number().min(0).max(1).describe('1 = fully and correctly answered; 0.7 or more passes'),
  feedback: z
    .string()
    .describe('What is missing or wrong; when passing, the caveats the final answer must mention, or "" when none'),
  failedStepIds: z.array(z.string()).describe('Ids of the steps whose results are failed, wrong or insufficient'),
});

/** schemaName `council_review`: one reviewer's ranking of the anonymized answers, best first. */
export const CouncilReviewSchema = z.object({
  ranking: z.array(z.string()).describe('Every label exactly once, best first; no ties'),
  critique: z.string().describe('Why the best answers are better and what the weaker ones miss'),
});

/** schemaName `council_verdict`: the chairman's typed verdict (CouncilVerdict in run/events.ts). */
export const CouncilVerdictSchema = z.object({
  recommendation: z.string().describe('What to do and the main reason; never mention answer labels or reviewers'),
  keyInsights: z.array(z.string()).describe('The most useful points made'),
  blindSpots: z.array(z.string()).describe('What the advisors missed or assumed'),
  consensus: z.string().describe('What the advisors agree on'),
  dissent: z.string().describe('Where they disagree; empty when they agree'),
  nextStep: z.string().describe('The first concrete action'),
  confidence: z.number().min(0).max(1).describe('0..1: how sure the recommendation is right, given what is known'),
});
