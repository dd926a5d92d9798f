import { describe, expect, it } from 'vitest';
import { needsApproval } from '../../../src/hitl/guard.ts';

describe('needsApproval', () => {
  it('follows MCP annotations under the annotations policy', () => {
    expect(needsApproval({ annotations: { destructiveHint: true } }, 'annotations')).toEqual({
      required: true,
      reason: 'annotations: destructiveHint',
    });
    expect(needsApproval({ annotations: { readOnlyHint: true } }, 'annotations').required).toBe(false);
    expect(
      needsApproval({ annotations: { readOnlyHint: false, destructiveHint: false } }, 'annotations').required,
    ).toBe(false);
  });

  it('treats absent or contradictory annotations as destructive (MCP defaults)', () => {
    expect(needsApproval({ annotations: {} }, 'annotations')).toMatchObject({
      required: true,
      reason: expect.stringMatching(/absent/),
    });
    expect(needsApproval({ annotations: { readOnlyHint: false } }, 'annotations').required).toBe(true);
    expect(needsApproval({ annotations: { openWorldHint: true } }, 'annotations').required).toBe(true);
    expect(needsApproval({ annotations: { readOnlyHint: true, destructiveHint: true } }, 'annotations').required).toBe(
      true,
    );
  });

  it('config requireApproval beats annotations both ways', () => {
    expect(needsApproval({ annotations: { readOnlyHint: true }, requireApproval: true }, 'annotations')).toEqual({
      required: true,
      reason: 'config: requireApproval',
    });
    expect(
      needsApproval({ annotations: { destructiveHint: true }, requireApproval: false }, 'annotations').required,
    ).toBe(false);
  });

  it('always and never are absolute', () => {
    expect(needsApproval({ annotations: { readOnlyHint: true }, requireApproval: false }, 'always').required).toBe(
      true,
    );
    expect(needsApproval({ annotations: { destructiveHint: true }, requireApproval: true }, 'never').required).toBe(
      false,
    );
  });
});
