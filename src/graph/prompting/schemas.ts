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

/** schemaName `council_review`: one reviewer's assessment of each labelled answer, then its ranking (REVIEWER_SYSTEM explains both). */
export const CouncilReviewSchema = z.object({
  assessments: z
    .array(
      z.object({
        label: z.string().describe('The answer\'s label, the bare letter (e.g. "A")'),
        critique: z
          .string()
          .describe('What this answer gets right and what it misses, on the criteria; names no other label'),
      }),
    )
    .describe('One per answer, in the order shown, written before the ranking'),
  ranking: z.array(z.string()).describe('Every label exactly once, best first; no ties'),
});

/**
 * schemaName `council_verdict`: the chairman's comparison first (so it compares before it decides),
 * then the decision fields (data: events, the Decision record, protocol data parts), then the answer
 * the person reads (CouncilVerdict in knowledge/records.ts). CHAIRMAN_SYSTEM in specialists/council.ts explains every field.
 */
export const CouncilVerdictSchema = z.object({
  comparison: z
    .string()
    .describe('The answers compared before deciding: where they agree, where they differ, whose reasoning holds up'),
  recommendation: z.string().describe('What to do and the main reason; never mention answer labels or reviewers'),
  keyInsights: z.array(z.string()).describe('The most useful points made'),
  blindSpots: z.array(z.string()).describe('What the advisors missed or assumed'),
  consensus: z.string().describe('What the advisors agree on'),
  dissent: z.string().describe('Where they disagree; empty when they agree'),
  nextStep: z.string().describe('The first concrete action'),
  confidence: z.number().min(0).max(1).describe('0..1: how sure the recommendation is right, given what is known'),
  confidenceReason: z.string().describe('Why the confidence is that high and not higher, in a sentence'),
  answer: z
    .string()
    .describe("The advice the person reads, in the question's language and the form it asks for; no labels or scores"),
});

/** One reviewer's ranking as data: the advisors' ids, best first, and its critique of each (labels resolved). */
export const CouncilRankingSchema = z.object({
  reviewer: z.number().int(),
  ranking: z.array(z.string()),
  critiques: z.record(z.string(), z.string()),
});

/** The verdict as events, the Decision record and protocol data parts carry it: the chairman's fields and the reviews. */
export const CouncilRecordSchema = CouncilVerdictSchema.extend({ rankings: z.array(CouncilRankingSchema) });
