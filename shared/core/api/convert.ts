// Conversion between v1alpha1 and v1beta1, without loss in either direction.
//
// The mapping (documented in infra/crds/README.md):
// - v1alpha1 spec.replicas counts Redis nodes: replicas = masters × (1 + replicasPerMaster).
//   A v1alpha1 object that never had v1beta1-only fields converts to masters = replicas,
//   replicasPerMaster = 0 (the tutorial's nodes are all masters).
// - storageClass <-> storage.className; resources and config are the same in both;
//   status.readyReplicas <-> status.readyNodes; conditions and masterPod are the same.
// - Going down, the v1beta1 fields v1alpha1 cannot hold (replicasPerMaster, version, storage
//   size, auth, ...) are kept as JSON in the annotation cache.redis.io/v1beta1-spec (and
//   cache.redis.io/v1beta1-status), unless they equal what the way up would produce anyway, so
//   a plain v1alpha1 object gets no annotation. Going up, they are read back and the
//   annotations removed. Kubernetes' own API conversions keep fields the same way.
// - Comparison is made after schema defaults: beta -> alpha -> beta gives the beta object as
//   the API server serves it (defaults filled), alpha -> beta -> alpha gives the alpha object.
import { withDefaults, type DefaultedSpec } from './defaults.ts';
import { ConversionError } from './errors.ts';
import {
  ANNOTATION_V1BETA1_SPEC,
  ANNOTATION_V1BETA1_STATUS,
  API_VERSION_V1ALPHA1,
  API_VERSION_V1BETA1,
  KIND,
} from './group.ts';
import { compact, isJsonObject, jsonEqual, sortedJson, type JsonObject } from './json.ts';
import type { RedisClusterSpecV1alpha1, RedisClusterStatusV1alpha1, RedisClusterV1alpha1 } from './v1alpha1.ts';
import type { RedisCluster, RedisClusterSpec, RedisClusterStatus, StorageSpec } from './v1beta1.ts';
import type { ObjectMeta } from './k8s-types.ts';

/** The v1beta1 spec fields v1alpha1 cannot hold: what the spec annotation carries. */
export type SpecExtras = Omit<RedisClusterSpec, 'masters' | 'resources' | 'config' | 'storage'> & {
  storage?: Omit<StorageSpec, 'className'>;
};
/** The v1beta1 status fields v1alpha1 cannot hold. */
export type StatusExtras = Omit<RedisClusterStatus, 'conditions' | 'masterPod' | 'readyNodes'>;

function splitSpec(spec: DefaultedSpec): { alpha: RedisClusterSpecV1alpha1; extras: SpecExtras } {
  const { masters, replicasPerMaster, resources, config, storage, ...rest } = spec;
  const { className, ...storageRest } = storage;
  return {
    alpha: compact({ replicas: masters * (1 + replicasPerMaster), resources, config, storageClass: className }),
    extras: compact({ ...rest, replicasPerMaster, storage: storageRest }),
  };
}

/** What a v1alpha1 spec without annotation converts to: all nodes are masters. */
function baselineSpec(alpha: RedisClusterSpecV1alpha1): RedisClusterSpec {
  return compact({
    masters: alpha.replicas,
    replicasPerMaster: 0,
    resources: alpha.resources,
    config: alpha.config,
    storage: alpha.storageClass === undefined ? undefined : { className: alpha.storageClass },
  });
}

/** metadata with these annotations; without the field when it is empty and was absent or held only ours. */
function withAnnotations(metadata: ObjectMeta, annotations: Record<string, string>, hadOnlyOurs: boolean): ObjectMeta {
  const out: ObjectMeta = { ...metadata, annotations };
  if (Object.keys(annotations).length === 0 && (metadata.annotations === undefined || hadOnlyOurs))
    delete out.annotations;
  return out;
}

const ours = [ANNOTATION_V1BETA1_SPEC, ANNOTATION_V1BETA1_STATUS];
const holdsOurs = (annotations: Record<string, string> | undefined) => ours.some((k) => annotations?.[k] !== undefined);

/** v1beta1 -> v1alpha1. Total: every v1beta1 object has a v1alpha1 form. */
export function toV1alpha1(obj: RedisCluster): RedisClusterV1alpha1 {
  const { alpha, extras } = splitSpec(withDefaults(obj.spec ?? {}));
  const annotations = { ...(obj.metadata?.annotations ?? {}) };
  delete annotations[ANNOTATION_V1BETA1_SPEC];
  delete annotations[ANNOTATION_V1BETA1_STATUS];
  if (!jsonEqual(extras, splitSpec(withDefaults(baselineSpec(alpha))).extras))
    annotations[ANNOTATION_V1BETA1_SPEC] = sortedJson(extras);
  let status: RedisClusterStatusV1alpha1 | undefined;
  if (obj.status !== undefined) {
    const { conditions, masterPod, readyNodes, ...statusRest } = obj.status;
    status = compact({ conditions, masterPod, readyReplicas: readyNodes });
    if (Object.keys(compact(statusRest)).length > 0) annotations[ANNOTATION_V1BETA1_STATUS] = sortedJson(statusRest);
  }
  return compact({
    ...obj,
    apiVersion: API_VERSION_V1ALPHA1,
    kind: KIND,
    metadata: withAnnotations(obj.metadata ?? {}, annotations, false),
    spec: alpha,
    status,
  });
}

function parseAnnotation(annotations: Record<string, string>, key: string): JsonObject | undefined {
  const text = annotations[key];
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConversionError(
      `metadata.annotations[${key}] is not valid JSON; it holds the v1beta1 fields of this object: remove it or restore it from a v1beta1 read`,
    );
  }
  if (!isJsonObject(value))
    throw new ConversionError(`metadata.annotations[${key}] must be a JSON object with v1beta1 fields`);
  return value;
}

function unevenReplicasMessage(replicas: number, replicasPerMaster: number): string {
  const n = 1 + replicasPerMaster;
  const lower = Math.floor(replicas / n) * n;
  return (
    `spec.replicas: ${replicas} Redis nodes cannot be split into masters with ${replicasPerMaster} replica${replicasPerMaster === 1 ? '' : 's'} each: ` +
    `use a multiple of ${n} (such as ${lower > 0 ? `${lower} or ` : ''}${lower + n}), or change masters and replicasPerMaster through cache.redis.io/v1beta1`
  );
}

/** The replicasPerMaster a v1alpha1 object carries in its annotation (0 without one). */
function replicasPerMasterOf(obj: RedisClusterV1alpha1): number {
  const rpm = parseAnnotation(obj.metadata?.annotations ?? {}, ANNOTATION_V1BETA1_SPEC)?.replicasPerMaster ?? 0;
  if (typeof rpm !== 'number' || !Number.isInteger(rpm) || rpm < 0) {
    throw new ConversionError(
      `metadata.annotations[${ANNOTATION_V1BETA1_SPEC}]: replicasPerMaster must be a whole number >= 0`,
    );
  }
  return rpm;
}

/** v1alpha1 -> v1beta1. Fails (with a message for the user) on a broken annotation or uneven replicas. */
export function toV1beta1(obj: RedisClusterV1alpha1): RedisCluster {
  const annotations = { ...(obj.metadata?.annotations ?? {}) };
  const extras = (parseAnnotation(annotations, ANNOTATION_V1BETA1_SPEC) ?? {}) as SpecExtras;
  const statusExtras = parseAnnotation(annotations, ANNOTATION_V1BETA1_STATUS) as StatusExtras | undefined;
  delete annotations[ANNOTATION_V1BETA1_SPEC];
  delete annotations[ANNOTATION_V1BETA1_STATUS];
  const a = obj.spec ?? ({} as RedisClusterSpecV1alpha1);
  if (typeof a.replicas !== 'number' || !Number.isInteger(a.replicas))
    throw new ConversionError('spec.replicas must be a whole number of Redis nodes');
  const rpm = replicasPerMasterOf(obj);
  if (a.replicas % (1 + rpm) !== 0) throw new ConversionError(unevenReplicasMessage(a.replicas, rpm));
  const { storage: storageExtras, ...rest } = extras;
  const storage = compact({ ...(isJsonObject(storageExtras) ? storageExtras : {}), className: a.storageClass });
  const spec = compact({
    ...rest,
    masters: a.replicas / (1 + rpm),
    replicasPerMaster: rpm,
    resources: a.resources,
    config: a.config,
    storage: Object.keys(storage).length > 0 ? storage : undefined,
  }) as RedisClusterSpec;
  let status: RedisClusterStatus | undefined;
  if (obj.status !== undefined || statusExtras !== undefined) {
    const s = obj.status ?? {};
    status = compact({
      ...statusExtras,
      conditions: s.conditions,
      masterPod: s.masterPod,
      readyNodes: s.readyReplicas,
    });
  }
  const metadata = withAnnotations(obj.metadata ?? {}, annotations, holdsOurs(obj.metadata?.annotations));
  return compact({ ...obj, apiVersion: API_VERSION_V1BETA1, kind: KIND, metadata, spec, status }) as RedisCluster;
}

/** Converts one object of the ConversionReview to desiredAPIVersion, checking its shape first. */
export function convertObject(obj: unknown, desiredAPIVersion: string): JsonObject {
  if (!isJsonObject(obj)) throw new ConversionError('each object must be a JSON object');
  if (obj.kind !== KIND) throw new ConversionError(`kind ${JSON.stringify(obj.kind)} is not ${KIND}`);
  if (!isJsonObject(obj.metadata)) throw new ConversionError('metadata must be an object');
  if (obj.spec !== undefined && !isJsonObject(obj.spec)) throw new ConversionError('spec must be an object');
  if (obj.status !== undefined && !isJsonObject(obj.status)) throw new ConversionError('status must be an object');
  const versions = [API_VERSION_V1ALPHA1, API_VERSION_V1BETA1];
  if (!versions.includes(desiredAPIVersion))
    throw new ConversionError(
      `desiredAPIVersion ${JSON.stringify(desiredAPIVersion)} is not one of ${versions.join(', ')}`,
    );
  if (obj.apiVersion === desiredAPIVersion) return obj;
  if (obj.apiVersion === API_VERSION_V1ALPHA1)
    return toV1beta1(obj as unknown as RedisClusterV1alpha1) as unknown as JsonObject;
  if (obj.apiVersion === API_VERSION_V1BETA1)
    return toV1alpha1(obj as unknown as RedisCluster) as unknown as JsonObject;
  throw new ConversionError(`apiVersion ${JSON.stringify(obj.apiVersion)} is not one of ${versions.join(', ')}`);
}
