/**
 * The test side of ACP: the SDK's own ClientApp, recording every session/update and permission request,
 * answering permission requests with whatever the test chose.
 */
import { Readable, Writable } from 'node:stream';
import {
  client,
  methods,
  ndJsonStream,
  type ClientApp,
  type ClientContext,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type PlanEntry,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';

export type PermissionAnswer = (
  request: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

export interface RecordingClient {
  app: ClientApp;
  /** Every session/update, in arrival order. */
  notifications: SessionNotification[];
  /** Every session/request_permission, in arrival order. */
  permissions: RequestPermissionRequest[];
  /** How the next permission requests are answered (default: allow once). */
  answer: PermissionAnswer;
  /** Every elicitation/create, in arrival order. */
  elicitations: CreateElicitationRequest[];
  /** How elicitations are answered (default: cancel). */
  answerElicitation: (request: CreateElicitationRequest) => CreateElicitationResponse;
  /** Resolves at the first update matching `predicate` (already received ones count). */
  waitFor(predicate: (update: SessionUpdate) => boolean): Promise<SessionUpdate>;
}

export const select = (optionId: string): RequestPermissionResponse => ({ outcome: { outcome: 'selected', optionId } });

export function recordingClient(): RecordingClient {
  const waiters: { predicate: (u: SessionUpdate) => boolean; resolve: (u: SessionUpdate) => void }[] = [];
  const rc: RecordingClient = {
    app: client({ name: 'parley-acp-test' }),
    notifications: [],
    permissions: [],
    answer: () => select('allow_once'),
    elicitations: [],
    answerElicitation: () => ({ action: 'cancel' }),
    waitFor(predicate) {
      const seen = rc.notifications.find((n) => predicate(n.update));
      if (seen) return Promise.resolve(seen.update);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
  rc.app
    .onNotification(methods.client.session.update, ({ params }) => {
      rc.notifications.push(params);
      for (const w of [...waiters]) {
        if (w.predicate(params.update)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(params.update);
        }
      }
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      rc.permissions.push(params);
      return rc.answer(params);
    })
    .onRequest(methods.client.elicitation.create, ({ params }) => {
      rc.elicitations.push(params);
      return rc.answerElicitation(params);
    });
  return rc;
}

/** The updates of one session, by kind. */
export function updatesOf<K extends SessionUpdate['sessionUpdate']>(
  rc: RecordingClient,
  sessionId: string,
  kind: K,
): Extract<SessionUpdate, { sessionUpdate: K }>[] {
  return rc.notifications
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
    .map((n) => n.update as Extract<SessionUpdate, { sessionUpdate: K }>);
}

/** The answer text the client would show: every agent_message_chunk of the session, joined. */
export function messageText(rc: RecordingClient, sessionId: string): string {
  return updatesOf(rc, sessionId, 'agent_message_chunk')
    .map((u) => (u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

export function statuses(entries: PlanEntry[]): string[] {
  return entries.map((e) => e.status);
}

/**
 * `app` connected over a child's stdin and stdout, as an editor runs `parley acp`: the connection stays
 * open until finish() (then the caller ends the child's stdin).
 */
export async function connectOverStdio(
  app: ClientApp,
  child: { stdin: Writable; stdout: Readable },
): Promise<{ ctx: ClientContext; finish: () => void }> {
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  let finish: () => void = () => undefined;
  const ctx = await new Promise<ClientContext>((resolve) => {
    void app
      .connectWith(stream, async (c) => {
        resolve(c);
        await new Promise<void>((r) => (finish = r));
      })
      .catch(() => undefined);
  });
  return { ctx, finish: () => finish() };
}
