/**
 * Image parts reach the roles configured to take them (PARLEY_IMAGE_ROLES), planned steps included;
 * the other roles get only text and a line saying how many images came.
 */
import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';

const IMAGE = 'data:image/png;base64,iVBORw0KGgo=';
const hasImage = (body: unknown) => JSON.stringify(body).includes(IMAGE);

describe('images per role', () => {
  const parley = useTestParley({ config: { engine: { imageRoles: ['planner', 'specialist', 'synthesizer'] } } });

  it('a planned run sends the image to the planner, the step and the synthesizer, not to the router or verifier', async () => {
    const { result } = await parley.run({
      query: 'Describe the chart in this image for the analysis report [[steps:1]]',
      parts: [{ type: 'image', url: IMAGE, mimeType: 'image/png' }],
      mode: 'auto',
    });
    expect(result.status).toBe('completed');
    const calls = parley.scripted.requests.filter((r) => r.runId === result.runId && r.endpoint === 'chat.completions');
    const byRole = (role: string) => calls.filter((r) => r.role === role);
    for (const role of ['planner', 'specialist', 'synthesizer']) {
      expect(byRole(role).length, role).toBeGreaterThan(0);
      for (const r of byRole(role)) expect(hasImage(r.body), role).toBe(true);
    }
    for (const role of ['router', 'verifier']) {
      expect(byRole(role).length, role).toBeGreaterThan(0);
      for (const r of byRole(role)) {
        expect(hasImage(r.body), role).toBe(false);
        expect(JSON.stringify(r.body), role).toContain('[1 image attached to the request, not shown to this model]');
      }
    }
  });
});
