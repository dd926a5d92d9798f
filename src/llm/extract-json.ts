/**
 * Tolerant extraction of the JSON a model meant: many models wrap it in prose, put a fence in the
 * middle of a sentence, add a sentence after it, or think aloud first (<think>…</think>). The text
 * is tried whole, then each fenced block, then the first balanced {…} that parses.
 */

/** Drops the thinking some servers leave in the content (<think>…</think>, also an unclosed leading one). */
export function stripThinking(text: string): string {
  return text
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .replace(/^\s*<think>[\s\S]*$/i, '')
    .trim();
}

/** The end index (exclusive) of the balanced object or array starting at `start`, or -1. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') stack.push(ch === '{' ? '}' : ']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Candidate JSON texts, best first; the caller parses the first and reports its error when none parses. */
export function jsonCandidates(raw: string): string[] {
  const text = stripThinking(raw);
  const candidates = [text];
  for (const m of text.matchAll(/```[a-zA-Z]*\s*\n?([\s\S]*?)```/g)) candidates.push(m[1]!.trim());
  // Top-level balanced objects in order (the first that parses wins), at most a few: prose is short.
  for (let i = text.indexOf('{'); i >= 0 && candidates.length < 20; i = text.indexOf('{', i + 1)) {
    const end = balancedEnd(text, i);
    if (end > 0) {
      candidates.push(text.slice(i, end));
      i = end - 1;
    }
  }
  return candidates;
}

/** The JSON inside a reply: the first candidate that parses, else the whole text (whose parse error is the one to report). */
export function extractJson(raw: string): string {
  const candidates = jsonCandidates(raw);
  return candidates.find(parses) ?? candidates[0]!;
}
