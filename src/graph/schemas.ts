/** Structured-output schemas of the engine's model calls, by the schemaName each is sent under. */
import { z } from 'zod';

/** schemaName `route`: the trivial fast path decision. */
export const RouteSchema = z.object({
  route: z.enum(['direct', 'plan', 'council', 'dynamic']),
  reason: z.string(),
});

/** schemaName `verification`. */
export const VerificationSchema = z.object({
  score: z.number().min(0).max(1),
  feedback: z.string(),
  failedStepIds: z.array(z.string()),
});

/** schemaName `council_review`: one reviewer's ranking of the anonymized answers, best first. */
export const CouncilReviewSchema = z.object({
  ranking: z.array(z.string()),
  critique: z.string(),
});

/** schemaName `council_verdict`: the chairman's typed verdict (CouncilVerdict in events.ts). */
export const CouncilVerdictSchema = z.object({
  recommendation: z.string(),
  keyInsights: z.array(z.string()),
  blindSpots: z.array(z.string()),
  consensus: z.string(),
  dissent: z.string(),
  nextStep: z.string(),
  confidence: z.number().min(0).max(1),
});
