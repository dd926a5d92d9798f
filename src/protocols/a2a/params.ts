/**
 * The params check at the edge of /a2a: each method's params against its zod schema (v1.0 or v0.3)
 * before the SDK's transport handler reads them. The answer to a wrong type is a plain sentence
 * naming the field ("message.parts[0].text: Invalid input: expected string, received number"),
 * never what JavaScript said when the SDK tripped on it. Unknown methods are left to the SDK (-32601).
 */
import { V03_PARAMS } from './params-v03.ts';
import { V1_PARAMS } from './params-v1.ts';
import { issuesSentence } from '../shared/schema-issues.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Free-form values (google.protobuf.Struct / Value): their keys are the client's, not ProtoJSON names. */
const FREE_FORM = new Set(['metadata', 'data']);

/**
 * The deepest field the schemas look at is params.configuration.taskPushNotificationConfig
 * .authentication.scheme; below that nothing is renamed (nor recursed into: a client may nest deeply).
 */
const SCHEMA_DEPTH = 6;

/** ProtoJSON accepts the proto field names (snake_case) too; the SDK's fromJSON reads both, camelCase first. */
function camelNames(value: unknown, depth = 0): unknown {
  if (depth > SCHEMA_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => camelNames(v, depth + 1));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (name !== key && name in value) continue;
    out[name] = FREE_FORM.has(name) ? v : camelNames(v, depth + 1);
  }
  return out;
}

/**
 * What is wrong with a request's params, in one sentence, or undefined when they are fine (or the
 * method is not one Parley knows; the SDK then answers method-not-found).
 */
export function paramsProblem(version: '1.0' | '0.3', method: string, params: unknown): string | undefined {
  const schemas = version === '1.0' ? V1_PARAMS : V03_PARAMS;
  if (!Object.hasOwn(schemas, method)) return undefined;
  const checked = schemas[method]!.safeParse(version === '1.0' ? camelNames(params) : params);
  if (checked.success) return undefined;
  return `Invalid params: ${issuesSentence(checked.error.issues)}`;
}
