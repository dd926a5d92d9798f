/**
 * The change events of `subscriptions/listen` (MCP 2026-07-28) across replicas: a run recorded on one
 * replica reaches a client listening on another. The SDK's in-process bus delivers to this process's
 * streams; events published here also go out on the cluster, and events from the other replicas come in
 * from it (delivery at most once, like every cluster message: a lost one costs a client a refresh).
 */
import { InMemoryServerEventBus, type ServerEvent, type ServerEventBus } from '@modelcontextprotocol/server';
import type { Cluster } from '../../cluster/types.ts';
import type { Logger } from '../../log.ts';

const CHANNEL = 'mcp:listen';

interface Envelope {
  from: string;
  event: ServerEvent;
}

export function clusterEventBus(cluster: Cluster, logger: Logger): ServerEventBus & { close(): void } {
  const local = new InMemoryServerEventBus((err) => logger.warn('mcp: a listen stream failed', { error: err.message }));
  const unsubscribe = cluster.subscribe(CHANNEL, (message) => {
    const { from, event } = message as Envelope;
    if (from !== cluster.replicaId) local.publish(event);
  });
  return {
    publish(event) {
      local.publish(event);
      cluster.publish(CHANNEL, { from: cluster.replicaId, event } satisfies Envelope).catch((err: unknown) => {
        logger.warn('mcp: telling the other replicas of a change failed', { error: String(err) });
      });
    },
    subscribe: (listener) => local.subscribe(listener),
    close: unsubscribe,
  };
}
