/**
 * The SDK's PushNotificationStore over Parley's A2APushStore port (src/store/a2a-push/): configs scoped
 * like tasks (tenant and owner, so another caller neither sees nor replaces them), bounded per task
 * (PARLEY_A2A_PUSH_MAX_CONFIGS), and a webhook URL checked before it is stored (http/outbound-guard.ts).
 * A refused config is a -32602 / 400 in the binding's own shape, and nothing is stored.
 */
import { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { PushNotificationStore, ServerCallContext, StoredPushNotificationConfig } from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';
import { outboundProblem } from '../../http/outbound-guard.ts';
import type { A2APushStore, StoredPushConfig } from '../../store/a2a-push/types.ts';
import type { TaskScope } from '../../store/a2a-tasks/types.ts';

export interface PushStoreOptions {
  allowPrivate: boolean;
  maxConfigs: number;
  scopeOf: (context: ServerCallContext) => TaskScope;
}

const WIRE_VERSION = '1.0';
const MAX_ID_CHARS = 256;

const toSdk = (stored: StoredPushConfig): TaskPushNotificationConfig =>
  TaskPushNotificationConfig.fromJSON(stored.config);

export class ParleyPushStore implements PushNotificationStore {
  constructor(
    private readonly port: A2APushStore,
    private readonly options: PushStoreOptions,
  ) {}

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    const scope = this.options.scopeOf(context);
    // The SDK hands the result back by reference: an empty id is assigned here, in place.
    if (!config.id) config.id = randomUUID();
    if (config.id.length > MAX_ID_CHARS)
      throw new RequestMalformedError(`a config id is at most ${MAX_ID_CHARS} characters`);
    const problem = await outboundProblem(config.url, { allowPrivate: this.options.allowPrivate });
    if (problem) throw new RequestMalformedError(`push notification url refused: ${problem}`);
    const existing = await this.port.listConfigs(scope, taskId);
    if (!existing.some((c) => c.id === config.id) && existing.length >= this.options.maxConfigs) {
      throw new RequestMalformedError(
        `task ${taskId} has ${existing.length} push notification configs, the most allowed (PARLEY_A2A_PUSH_MAX_CONFIGS); delete one first`,
      );
    }
    await this.port.putConfig(scope, taskId, {
      id: config.id,
      config: TaskPushNotificationConfig.toJSON({ ...config, taskId }) as Record<string, unknown>,
      wireVersion: context.requestedVersion || WIRE_VERSION,
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return (await this.port.listConfigs(this.options.scopeOf(context), taskId)).map(toSdk);
  }

  async loadWithMetadata(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]> {
    return (await this.port.listConfigs(this.options.scopeOf(context), taskId)).map((c) => ({
      config: toSdk(c),
      wireVersion: c.wireVersion,
    }));
  }

  async delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    await this.port.deleteConfig(this.options.scopeOf(context), taskId, configId);
  }
}
