/**
 * One MCP session's view of the shared event store. The SDK names every session's standalone GET stream
 * `_GET_stream`, and replays whatever event id it is given, so without this one session could read
 * another's notifications by sending its Last-Event-ID. Here every stream id is prefixed with the
 * session id, and an event id of another session is unknown (the SDK answers 400, as for a bad id).
 */
import type { EventStore } from '@modelcontextprotocol/server';
import type { McpEventStore } from './lmdb-event-store.ts';

export function sessionEvents(store: McpEventStore, sessionId: () => string | undefined): EventStore {
  const prefix = () => `${sessionId() ?? '-'}/`;
  const own = (eventId: string) => eventId.startsWith(prefix());
  return {
    storeEvent: (streamId, message) => store.storeEvent(prefix() + streamId, message),
    async getStreamIdForEventId(eventId) {
      if (!own(eventId)) return undefined;
      return (await store.getStreamIdForEventId(eventId))?.slice(prefix().length);
    },
    async replayEventsAfter(lastEventId, { send }) {
      if (!own(lastEventId)) throw new Error('unknown event id');
      const streamId = await store.replayEventsAfter(lastEventId, { send });
      return streamId.slice(prefix().length);
    },
  };
}
