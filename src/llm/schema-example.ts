/** A small example instance of a JSON schema, shown in the prompt next to the schema (the `prompt` strategy). */
type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v);

export function schemaExample(schema: unknown, root: Schema = isObj(schema) ? schema : {}, depth = 0): unknown {
  if (!isObj(schema) || depth > 6) return null;
  if (typeof schema.$ref === 'string') {
    const path = schema.$ref.replace(/^#\//, '').split('/');
    const target = path.reduce<unknown>((node, key) => (isObj(node) ? node[key] : undefined), root);
    return schemaExample(target, root, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length)
      return schemaExample(options.find((o) => isObj(o) && o.type !== 'null') ?? options[0], root, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || isObj(schema.properties)) {
    const props = isObj(schema.properties) ? schema.properties : {};
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, schemaExample(v, root, depth + 1)]));
  }
  if (type === 'array') return [schemaExample(schema.items, root, depth + 1)];
  if (type === 'string') return '…';
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 0;
  if (type === 'boolean') return false;
  return null;
}
