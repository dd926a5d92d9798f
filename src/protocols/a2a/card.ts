/**
 * Parley's A2A agent card: skills from the specialist registry, streaming on, a JSON-RPC interface
 * at /a2a declared for v1.0 and (mirrored by the SDK helper) for v0.3, and HTTP+JSON at /a2a/rest (v1.0).
 * The v0.3 shape for legacy clients is produced by the SDK's own compat translator.
 */
import { AgentCard } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { DefaultRequestHandler, InMemoryTaskStore, ServerCallContext, type AgentExecutor } from '@a2a-js/sdk/server';
import type { KnowledgeReads } from '../../graph/contract.ts';
import { withoutLocalDetails } from '../../http/public-text.ts';
import { REST_PATH } from './rest.ts';

export interface CardOptions {
  version: string;
  /** True when PARLEY_API_KEYS is set: the card then declares bearer auth and an extended card. */
  bearerAuth: boolean;
  /** Whether the gRPC binding is served (its interface is announced). */
  grpc?: boolean;
}

/**
 * The endpoints under a base URL: JSON-RPC at /a2a declared for v1.0 and (mirrored by the SDK helper)
 * v0.3, the HTTP+JSON (REST) binding at /a2a/rest for v1.0, and with a gRPC port the gRPC binding (v1.0)
 * at `<host of the base URL>:<port>` (gRPC addresses have no scheme). JSON-RPC comes first: a client
 * that takes the card's order keeps using it.
 */
export function interfacesAt(publicUrl: string, grpcPort?: number): AgentCard['supportedInterfaces'] {
  const base = publicUrl.replace(/\/+$/, '');
  const grpcUrl = base ? `${new URL(base).hostname}:${grpcPort}` : '';
  return duplicateInterfacesForLegacy(
    [
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${base}${REST_PATH}`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      ...(grpcPort !== undefined
        ? [{ url: grpcUrl, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' }]
        : []),
    ],
    ['JSONRPC'],
  );
}

/**
 * What the extended card (GetExtendedAgentCard, for callers with a key) adds to the public one: how a
 * caller drives Parley, as skills. The public card says who Parley is; these say what a key lets one do.
 */
export const EXTENDED_SKILLS: AgentCard['skills'] = [
  {
    id: 'parley.mode.direct',
    name: 'Direct answer',
    description: 'metadata.mode "direct": one answer from the default model, no plan.',
    tags: ['mode'],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  },
  {
    id: 'parley.mode.orchestrate',
    name: 'Orchestrated answer',
    description:
      'metadata.mode "orchestrate": the question is planned as steps for specialists (a DAG), each step verified, the results synthesized; each step is an artifact.',
    tags: ['mode'],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  },
  {
    id: 'parley.mode.council',
    name: 'Council',
    description:
      'metadata.mode "council": several specialists answer and review each other; the verdict is an artifact.',
    tags: ['mode'],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  },
  {
    id: 'parley.approvals',
    name: 'Approvals',
    description:
      'A tool call that changes things makes the task input-required with a parley.approval data part; answer with a message on the task whose data part is { "request_id", "decisions": { "<toolCallId>": "accept" | "deny" | { "edit": {…} } } }.',
    tags: ['approval'],
    examples: [],
    inputModes: ['application/json'],
    outputModes: [],
    securityRequirements: [],
  },
];

/** The card without a URL yet: interfaces are filled per request (the public URL may be known only then). */
export function buildAgentCard(options: CardOptions): AgentCard {
  return {
    name: 'Parley',
    description:
      'A protocol hub with one orchestration graph: routes a question to specialists (planned as a DAG, verified, synthesized), ' +
      'or convenes a council. Tool calls that change things ask a human first (input-required).',
    supportedInterfaces: interfacesAt('', options.grpc ? 0 : undefined),
    provider: undefined,
    version: options.version,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: options.bearerAuth },
    securitySchemes: options.bearerAuth
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { description: 'A Parley API key (PARLEY_API_KEYS)', scheme: 'bearer', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: options.bearerAuth ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [],
    signatures: [],
  };
}

/**
 * Replaces the card's skills with the available specialists (the card object is shared with the SDK
 * handler). The card is served without auth: descriptions lose local paths and host names (a
 * filesystem server's names the workspace folder).
 */
export async function refreshSkills(card: AgentCard, store: KnowledgeReads): Promise<void> {
  const specialists = await store.listSpecialists({ available: true });
  card.skills = specialists.map((s) => ({
    id: s.id,
    name: withoutLocalDetails(s.name),
    description: withoutLocalDetails(s.description),
    tags: (s.domains.length ? s.domains : [s.kind]).map(withoutLocalDetails),
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
}

const noExecutor: AgentExecutor = {
  execute: async () => {},
  cancelTask: async () => {},
};

/**
 * The v0.3-shaped card. The SDK ships its card translator only inside the Express glue, so we
 * reach it through the v0.3 JSON-RPC method that returns a card (agent/getAuthenticatedExtendedCard)
 * on a throwaway handler whose extended card is the real one. Like the SDK's Express handler, the
 * v1.0 interfaces are embedded too.
 */
export async function legacyCard(card: AgentCard): Promise<unknown> {
  const handler = new DefaultRequestHandler(
    { ...card, capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: true } },
    new InMemoryTaskStore(),
    noExecutor,
    undefined,
    undefined,
    undefined,
    async () => card,
  );
  const reply = await new LegacyJsonRpcTransportHandler(handler).handle(
    { jsonrpc: '2.0', id: 0, method: 'agent/getAuthenticatedExtendedCard' },
    new ServerCallContext(),
  );
  if (!('result' in reply) || reply.result === undefined) throw new Error('v0.3 card translation failed');
  return {
    ...(reply.result as Record<string, unknown>),
    supportedInterfaces: (AgentCard.toJSON(card) as { supportedInterfaces?: unknown }).supportedInterfaces,
  };
}
