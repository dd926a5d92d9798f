/** The young generation `parley serve` holds while it starts (src/young-generation.ts), in a real Node process. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const FIXTURE = 'test/fixtures/runtime/young-generation.ts';

async function sizes(nodeOptions?: string) {
  const env = { ...process.env, NODE_OPTIONS: nodeOptions ?? '' };
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', FIXTURE], { env });
  return JSON.parse(stdout) as { start: number; held: number; released: number };
}

describe('holdYoungGeneration / releaseYoungGeneration', () => {
  it('keeps the new space at its size while held, and lets it grow again once released', async () => {
    const { start, held, released } = await sizes();
    expect(held).toBe(start);
    expect(released).toBeGreaterThan(held);
  });

  it('leaves a young generation the user configured alone', async () => {
    const { start, held } = await sizes('--max-semi-space-size=16');
    expect(held).toBeGreaterThan(start);
  });
});
