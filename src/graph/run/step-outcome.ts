/**
 * What the scheduler reports for one step: how it ended and what it produced. Its own file because the
 * prompts that show outcomes, the verifier and durable/ read it without needing the scheduler.
 */
import type { StepLineage, StepStatus } from './events.ts';

export interface StepOutcome {
  stepId: string;
  specialist: string;
  status: StepStatus;
  /** The objective actually given to the specialist (after {{id.result}} substitution). */
  objective: string;
  output?: string;
  error?: string;
  lineage?: StepLineage;
}
