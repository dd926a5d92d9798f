/**
 * "Where does a run's outcome get set?" has a one-file answer: src/graph/engine.ts. Nodes return an
 * outcome in their update (run/update.ts leaves it to the engine), recovery hands it to the engine's
 * launch, and only the engine writes `run.outcome`. This reads every src/ file with TypeScript's parser
 * and lists each assignment to `run.outcome`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const ASSIGNING = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
]);

/** `file:line` of every `run.outcome = …` (or `??=`, `||=`, `&&=`) in the file. */
function outcomeWrites(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isBinaryExpression(node) &&
      ASSIGNING.has(node.operatorToken.kind) &&
      ts.isPropertyAccessExpression(node.left) &&
      node.left.name.text === 'outcome' &&
      ts.isIdentifier(node.left.expression) &&
      node.left.expression.text === 'run'
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${relative(SRC, path).split(sep).join('/')}:${line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("a run's outcome", () => {
  it('is written in graph/engine.ts alone', () => {
    const writes = sourceFiles(SRC).flatMap(outcomeWrites);
    // The reader must see the engine's own writes, or the check passes vacuously.
    expect(writes.some((w) => w.startsWith('graph/engine.ts:'))).toBe(true);
    expect(writes.filter((w) => !w.startsWith('graph/engine.ts:'))).toEqual([]);
  });
});
