/**
 * A2A push notifications, as stored (docs/protocols/a2a.md, "Push notifications"): the webhook configs
 * clients set on their tasks, scoped like the tasks themselves (tenant and owner), and the outbox of
 * deliveries not yet acknowledged by their webhook. A delivery is written here before it is sent and
 * removed once the webhook answers 2xx (or it is given up), so a restart (kill -9 included) sends what
 * was pending: at-least-once. Plain data: a config is A2A's JSON form, opaque here. The interface is
 * async so a networked backend can implement it; test/integration/store/a2a-push.contract.ts is the
 * suite every backend runs.
 */
import type { TaskScope } from '../a2a-tasks/types.ts';

export type { TaskScope };

export interface StoredPushConfig {
  /** The config's id (unique within its task). */
  id: string;
  /** The config in A2A's JSON form (url, token, authentication, …). */
  config: Record<string, unknown>;
  /** The A2A wire version it was registered over (its webhook gets bodies of that version). */
  wireVersion: string;
}

export interface PushDelivery {
  /** Assigned by the store on enqueue: increasing, so ids order deliveries as they were enqueued. */
  seq: number;
  scope: TaskScope;
  taskId: string;
  configId: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Sends made so far. */
  attempts: number;
  /** Not to be sent before this instant (epoch ms). */
  notBefore: number;
  createdAt: number;
  lastError?: string;
}

export interface A2APushStore {
  /** Creates or replaces the config `config.id` of the task. */
  putConfig(scope: TaskScope, taskId: string, config: StoredPushConfig): Promise<void>;
  listConfigs(scope: TaskScope, taskId: string): Promise<StoredPushConfig[]>;
  /** Removes one config, or every config of the task without an id; its queued deliveries go too. */
  deleteConfig(scope: TaskScope, taskId: string, id?: string): Promise<void>;
  /** Appends deliveries (committed before it resolves); returns them with their seq. */
  enqueue(deliveries: Omit<PushDelivery, 'seq'>[]): Promise<PushDelivery[]>;
  /** Queued deliveries of a task (every config), for the per-task bound. */
  countQueued(scope: TaskScope, taskId: string): Promise<number>;
  /** Every queued delivery in seq order, at most `limit`. */
  queued(limit: number): Promise<PushDelivery[]>;
  /** Records a failed attempt (attempts, notBefore, lastError). */
  reschedule(delivery: PushDelivery): Promise<void>;
  /** Removes a delivery (sent, or given up). */
  remove(seq: number): Promise<void>;
}
