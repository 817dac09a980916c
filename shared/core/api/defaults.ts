// Defaulting from the schema, the way the API server applies a structural schema's `default`s
// (parent first, so a defaulted `{}` gets its own fields' defaults). The operator and the
// conversion webhook call it so that code sees what `kubectl get` shows, from one source.
import type { JSONSchemaProps } from './schema-types.ts';
import { specSchemaV1beta1 } from './schema-v1beta1.ts';
import type { RedisClusterSpec } from './v1beta1.ts';

type Json = unknown;

function isObject(x: Json): x is Record<string, Json> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A copy of value with the schema's defaults filled in; value itself is not changed. */
export function applySchemaDefaults<T>(schema: JSONSchemaProps, value: T): T {
  return fill(schema, structuredClone(value)) as T;
}

function fill(schema: JSONSchemaProps, value: Json): Json {
  if (Array.isArray(value)) {
    if (schema.items) for (let i = 0; i < value.length; i++) value[i] = fill(schema.items, value[i]);
    return value;
  }
  if (!isObject(value)) return value;
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (value[key] === undefined && prop.default !== undefined) value[key] = structuredClone(prop.default);
  }
  for (const [key, v] of Object.entries(value)) {
    const prop = schema.properties?.[key] ?? schema.additionalProperties;
    if (prop) value[key] = fill(prop, v);
  }
  return value;
}

/** The v1beta1 spec as the API server serves it: masters 3, replicasPerMaster 1, version, storage. */
export type DefaultedSpec = RedisClusterSpec &
  Required<Pick<RedisClusterSpec, 'masters' | 'replicasPerMaster' | 'version' | 'storage'>>;

export function withDefaults(spec: RedisClusterSpec): DefaultedSpec {
  return applySchemaDefaults(specSchemaV1beta1, spec) as DefaultedSpec;
}
