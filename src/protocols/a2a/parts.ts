/**
 * Builders for the A2A v1.0 object shapes the SDK works with internally (proto-style: parts carry
 * `content.$case`, states and roles are enums). Plain data in, plain data out.
 */
import { randomUUID } from 'node:crypto';
import { Role, type Artifact, type Message, type Part, type TaskState, type TaskStatus } from '@a2a-js/sdk';

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** An agent message; `messageId` is given when the message stands for one run event (see events.ts). */
export function agentMessage(
  taskId: string,
  contextId: string,
  parts: Part[],
  messageId: string = randomUUID(),
): Message {
  return {
    messageId,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function status(state: TaskState, message?: Message): TaskStatus {
  return { state, message, timestamp: new Date().toISOString() };
}

export function artifact(
  artifactId: string,
  name: string,
  description: string,
  parts: Part[],
  metadata?: Record<string, unknown>,
): Artifact {
  return { artifactId, name, description, parts, metadata, extensions: [] };
}

/** The text parts of a message, joined: what Parley treats as the query. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t.trim() !== '')
    .join('\n')
    .trim();
}

/** The values of a message's data parts (JSON objects only). */
export function dataOf(message: Message | undefined): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const p of message?.parts ?? []) {
    const v: unknown = p.content?.$case === 'data' ? p.content.value : undefined;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(v as Record<string, unknown>);
  }
  return out;
}

/** What Parley reads from a message: text parts (the question) and JSON data parts (an answer to an approval). */
export const READABLE_MEDIA_TYPES = ['text/plain', 'application/json'] as const;

const readable = (p: Part) => p.content?.$case === 'text' || p.content?.$case === 'data';

/**
 * Why Parley cannot read any part of a message (only file parts: raw bytes or URLs, whatever
 * their media type), or undefined when at least one part is text or data.
 */
export function unreadableParts(message: Message): string | undefined {
  const parts = message.parts ?? [];
  if (parts.length === 0 || parts.some(readable)) return undefined;
  const types = [...new Set(parts.map((p) => p.mediaType || 'a file of no stated media type'))];
  return (
    `Parley reads ${READABLE_MEDIA_TYPES[0]} text parts (the question) and ${READABLE_MEDIA_TYPES[1]} data parts (an answer to an approval); ` +
    `this message has only file parts (${types.join(', ')}). Send the question as a text part.`
  );
}
