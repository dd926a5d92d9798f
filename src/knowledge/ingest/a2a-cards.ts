/**
 * A2A peers → `a2a` specialists. The card is fetched with the A2A SDK's resolver from
 * <base>/.well-known/agent-card.json and read in either shape: v1.0 (`supportedInterfaces`) or
 * v0.3 (`url` + `protocolVersion` + `preferredTransport`). Skills become the specialist's
 * description and domains, so retrieval can find the peer.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SpecialistRecord } from '../store.ts';

const SkillSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().default(''),
  tags: z.array(z.string()).default([]),
  examples: z.array(z.string()).optional(),
});

const CommonCard = {
  name: z.string().min(1),
  description: z.string().default(''),
  version: z.string().default(''),
  skills: z.array(SkillSchema).default([]),
};

const CardV1Schema = z.object({
  ...CommonCard,
  supportedInterfaces: z
    .array(
      z.object({ url: z.string().min(1), protocolBinding: z.string().min(1), protocolVersion: z.string().optional() }),
    )
    .min(1),
});

const CardV03Schema = z.object({
  ...CommonCard,
  url: z.string().min(1),
  protocolVersion: z.string().optional(),
  preferredTransport: z.string().optional(),
});

export interface PeerCard {
  protocol: '1.0' | '0.3';
  name: string;
  description: string;
  version: string;
  skills: z.infer<typeof SkillSchema>[];
  /** Where the peer serves A2A, from the card. */
  interfaces: { url: string; binding: string }[];
}

/** Reads a card in either shape; throws with the reason when it is neither. */
export function parseAgentCard(raw: unknown): PeerCard {
  const v1 = CardV1Schema.safeParse(raw);
  if (v1.success) {
    const c = v1.data;
    return {
      protocol: '1.0',
      name: c.name,
      description: c.description,
      version: c.version,
      skills: c.skills,
      interfaces: c.supportedInterfaces.map((i) => ({ url: i.url, binding: i.protocolBinding })),
    };
  }
  const v03 = CardV03Schema.safeParse(raw);
  if (v03.success) {
    const c = v03.data;
    return {
      protocol: '0.3',
      name: c.name,
      description: c.description,
      version: c.version,
      skills: c.skills,
      interfaces: [{ url: c.url, binding: c.preferredTransport ?? 'JSONRPC' }],
    };
  }
  const issue = v1.error.issues[0]!;
  throw new Error(`not an A2A agent card (v1.0 or v0.3): ${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

export async function fetchAgentCard(
  baseUrl: string,
  timeoutMs: number,
): Promise<{ card: PeerCard; contentHash: string }> {
  const once: typeof fetch = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  // A connection that fails (a peer closing an idle keep-alive connection as it is reused: undici's
  // "fetch failed") is tried once more on a fresh one: a card is a GET, and one reset at start-up should not
  // leave a live peer out of the registry until the next restart. A timeout or an HTTP error is not retried.
  const fetchImpl: typeof fetch = (input, init) =>
    once(input, init).catch((err: unknown) => {
      if (!(err instanceof TypeError)) throw err;
      return once(input, init);
    });
  // The resolver resolves the well-known path relative to the base: without a trailing slash a
  // peer mounted under a path (http://host/peer) would lose its last segment.
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  // Loaded here: only a config with A2A peers needs the client SDK.
  const { DefaultAgentCardResolver } = await import('@a2a-js/sdk/client');
  const raw = await new DefaultAgentCardResolver({ fetchImpl }).resolve(base);
  const contentHash = createHash('sha256').update(JSON.stringify(raw)).digest('hex');
  return { card: parseAgentCard(raw), contentHash };
}

export function peerSpecialistId(card: PeerCard): string {
  const slug = card.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `a2a-${slug || 'peer'}`;
}

/** The peer as a specialist; endpoint is the base URL the tools' PeerAgentHost resolves. */
export function cardToSpecialist(card: PeerCard, baseUrl: string, sourceId: string): SpecialistRecord {
  const skills = card.skills.map((s) => `${s.name}: ${s.description}`.trim()).join('\n');
  return {
    id: peerSpecialistId(card),
    name: card.name,
    description: [card.description, skills && `Skills:\n${skills}`].filter(Boolean).join('\n'),
    kind: 'a2a',
    domains: [...new Set(card.skills.flatMap((s) => s.tags))],
    prompt: '',
    endpoint: baseUrl,
    modelRole: 'specialist',
    tools: [],
    sourceId,
    available: true,
  };
}
