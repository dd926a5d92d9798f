/**
 * AG-UI team progress as activity messages (ACTIVITY_SNAPSHOT / ACTIVITY_DELTA) and the capability
 * declaration, through @ag-ui/client's HttpAgent against the real engine over real HTTP.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventType,
  HttpAgent,
  type ActivityDeltaEvent,
  type ActivityMessage,
  type ActivitySnapshotEvent,
  type AgentCapabilities,
} from '@ag-ui/client';
import { startRig, type Rig } from '../../../support/protocols/agui-rig.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.close();
});

/**
 * HttpAgent 1.0.0 leaves AbstractAgent's `getCapabilities?()` hook unimplemented; this is the
 * subclass docs/protocols/agui.md tells a client to write.
 */
class ParleyAgent extends HttpAgent {
  override async getCapabilities(): Promise<AgentCapabilities> {
    const res = await fetch(`${this.url}/capabilities`, { headers: this.headers });
    if (!res.ok) throw new Error(`capabilities: HTTP ${res.status}`);
    return (await res.json()) as AgentCapabilities;
  }
}

interface Member {
  stepId: string;
  specialist: string;
  status: string;
}

describe('AG-UI team progress as activity events', () => {
  it('a planned team run arrives as one activity message: a snapshot, then deltas the client applies', async () => {
    const agent = new HttpAgent({ url: `${rig.url}/ag-ui` });
    agent.addMessage({
      id: randomUUID(),
      role: 'user',
      content: 'Analyse the sales data trends and write a report about them',
    });
    const snapshots: ActivitySnapshotEvent[] = [];
    const deltas: ActivityDeltaEvent[] = [];
    const seen: string[] = [];
    const runId = randomUUID();
    await agent.runAgent(
      { runId },
      {
        onActivitySnapshotEvent: ({ event }) => void snapshots.push(event),
        onActivityDeltaEvent: ({ event }) => void deltas.push(event),
        onEvent: ({ event }) => void seen.push(event.type),
      },
    );

    expect(snapshots).toHaveLength(1);
    const snapshot = snapshots[0]!;
    expect(snapshot.activityType).toBe('parley_team');
    expect(snapshot.messageId).toBe(`${runId}:team:1`);
    const first = snapshot.content as { round: number; members: Member[] };
    expect(first.round).toBe(1);
    expect(first.members.length).toBeGreaterThan(0);
    expect(first.members.every((m) => m.status === 'pending')).toBe(true);

    // Each step's start and finish is a delta on the same message, after the snapshot.
    expect(deltas.length).toBeGreaterThanOrEqual(first.members.length * 2);
    expect(deltas.every((d) => d.messageId === snapshot.messageId && d.activityType === 'parley_team')).toBe(true);
    expect(seen.indexOf(EventType.ACTIVITY_SNAPSHOT)).toBeLessThan(seen.indexOf(EventType.ACTIVITY_DELTA));
    const ops = deltas.flatMap((d) => d.patch.map((p) => (p as { path: string }).path));
    expect(ops.some((p) => /^\/members\/\d+\/status$/.test(p))).toBe(true);

    // The client applied them: its activity message shows every member finished, like the state's plan.
    const activity = agent.messages.filter((m): m is ActivityMessage => m.role === 'activity');
    expect(activity).toHaveLength(1);
    const members = (activity[0]!.content as { members: Member[] }).members;
    const plan = (agent.state as { parley: { plan: { steps: { id: string; specialist: string; status: string }[] } } })
      .parley.plan.steps;
    expect(members.map((m) => [m.stepId, m.specialist, m.status])).toEqual(
      plan.map((s) => [s.id, s.specialist, s.status]),
    );
    expect(members.every((m) => m.status === 'succeeded')).toBe(true);
  });

  it('a direct answer has no team, so no activity message', async () => {
    const agent = new HttpAgent({ url: `${rig.url}/ag-ui` });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'hello there' });
    const seen: string[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void seen.push(event.type) });
    expect(seen).not.toContain(EventType.ACTIVITY_SNAPSHOT);
    expect(seen).not.toContain(EventType.ACTIVITY_DELTA);
    expect(agent.messages.some((m) => m.role === 'activity')).toBe(false);
  });

  it("declares its capabilities in @ag-ui/core's AgentCapabilities shape", async () => {
    const agent = new ParleyAgent({ url: `${rig.url}/ag-ui` });
    const caps = await agent.getCapabilities();
    expect(caps.identity?.name).toBe('Parley');
    expect(caps.transport).toMatchObject({ streaming: true, httpBinary: true });
    expect(caps.humanInTheLoop).toMatchObject({ supported: true, interrupts: true, approvals: true });
    expect(caps.state).toMatchObject({ snapshots: true, deltas: true });
    expect(caps.tools).toMatchObject({ clientProvided: false });
    expect(caps.execution?.maxExecutionTime).toBe(rig.parley.config.budget.run.wallTimeMs);
    expect((caps.custom?.parley as { activityTypes: string[] }).activityTypes).toEqual(['parley_team']);
  });
});
