/**
 * What Parley's AG-UI endpoint declares about itself, in @ag-ui/core's AgentCapabilities shape
 * (served at GET /ag-ui/capabilities). AG-UI defines the shape and the client hook
 * (`AbstractAgent.getCapabilities?()`) but no wire transport, and @ag-ui/client 1.0.0's HttpAgent
 * does not implement the hook: a client reads this with a GET (docs/protocols/agui.md shows the
 * three-line HttpAgent subclass). Only what Parley supports is declared; an absent field is unknown.
 */
import type { AgentCapabilities } from '@ag-ui/core';
import type { Config } from '../../config.ts';
import { VERSION } from '../../version.ts';
import { TEAM_ACTIVITY } from './activity.ts';
import { CUSTOM_EVENTS } from './translate.ts';

export function aguiCapabilities(config: Config): AgentCapabilities {
  return {
    identity: {
      name: 'Parley',
      type: 'orchestrator',
      description: 'Routes a request to a direct answer, a planned team of specialists or a council, and streams it.',
      version: VERSION,
      provider: 'Parley',
    },
    transport: { streaming: true, httpBinary: true, websocket: false },
    // Specialists call server-side MCP tools; frontend tools are accepted but never called.
    tools: { supported: true, clientProvided: false, parallelCalls: true },
    state: { snapshots: true, deltas: true, persistentState: true },
    multiAgent: { supported: true, delegation: true, handoffs: false },
    reasoning: { supported: true, streaming: true, encrypted: false },
    multimodal: { input: { image: true } },
    execution: { maxExecutionTime: config.budget.run.wallTimeMs },
    humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: true, feedback: true },
    custom: {
      parley: {
        activityTypes: [TEAM_ACTIVITY],
        customEvents: Object.values(CUSTOM_EVENTS),
        forwardedProps: [
          'mode',
          'model',
          'models',
          'reasoning',
          'citations',
          'budget',
          'interrupts',
          'continueOnDisconnect',
        ],
      },
    },
  };
}
