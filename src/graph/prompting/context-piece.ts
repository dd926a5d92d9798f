/** The texts a prompt carries for steps, as context-budget.ts fits them and prompts.ts and graph-plan.ts show them. */

/** One text a prompt carries for a step (its output, or the result a dependent step inlines). */
export interface ContextPiece {
  stepId: string;
  text: string;
}

/** The piece as the prompt shows it: whole, or summarized (and then marked with its original length). */
export interface FittedPiece extends ContextPiece {
  summarized?: { originalChars: number };
}
