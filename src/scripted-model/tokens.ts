/** Token counting for the scripted model's usage: about four characters per token, like English BPE. */
export const countTokens = (text: string): number => (text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4)));

/** Splits text into word-sized pieces for streaming deltas (concatenation gives the text back). */
export const pieces = (text: string): string[] => text.match(/\s*\S+/g) ?? (text ? [text] : []);
