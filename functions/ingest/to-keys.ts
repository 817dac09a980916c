// Maps an ApiServerSource event to the keys of the RedisClusters it concerns:
//   the RedisCluster itself                      -> its key
//   a child object (resource mode: full object)  -> an owner reference to a RedisCluster,
//                                                   else the cache.redis.io/cluster label
//   a child object (ref mode: only a reference)  -> read the live object through `lookup`
//                                                   (Knative v0.50 sends the object's OWN
//                                                   reference, never its owner's)
//                                                   and map it as above; when it is gone
//                                                   (a delete), every existing RedisCluster
//                                                   whose name is a '-'-prefix of the child's
//                                                   name (children are named <cluster>-...)
//   a RedisClusterBackup                         -> its spec.clusterName (ref mode: read from the
//                                                   live object); gone, the existing RedisClusters
//                                                   whose name prefixes its own (scheduled ones
//                                                   are <cluster>-<yyyymmddhhmm>)
//   a Secret (ref mode only: no data travels)    -> the RedisClusters that read it: their password
//                                                   (spec.auth.secretRef, or the generated one), their
//                                                   certificate, or one knredis keeps for them
//                                                   (shared/core/resources/secrets-used.ts)
// Anything else is unrelated: the caller answers 400 and queues nothing.
import { parseEventType, type KubeObjectLike, type ObjectMetaLike } from '../../shared/core/apiserver-events.ts';
import { BACKUP_KIND, GROUP, KIND, LABEL_CLUSTER } from '../../shared/core/api/group.ts';
import { isValidRef, toKey } from '../../shared/core/resource-key.ts';
import { CHILD_KINDS } from '../../shared/core/resources/owned-kinds.ts';

/** Kinds knredis creates for a RedisCluster (group/kind; core group is empty), from the one table. */
export const childKinds: ReadonlySet<string> = new Set(CHILD_KINDS.map((k) => `${k.group}/${k.kind}`));

export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** Reads what ingest needs from the API server (ref-mode events carry no metadata). */
export interface OwnerLookup {
  /** The live object (its metadata, and a backup's spec), or null when it does not exist. */
  readObject(ref: ObjectRef): Promise<LiveObject | null>;
  /** Those of `names` that are existing RedisClusters in the namespace. */
  existingClusters(namespace: string, names: readonly string[]): Promise<string[]>;
  /** The RedisClusters of the namespace that read this Secret (secretsUsedBy). */
  clustersUsingSecret(namespace: string, secret: string): Promise<string[]>;
}

export interface LiveObject extends KubeObjectLike {
  readonly spec?: unknown;
}

export interface EventFields {
  readonly type: string;
  readonly data: unknown;
  readonly extensions: Readonly<Record<string, unknown>>;
}

export type Mapping = { readonly keys: string[] } | { readonly unrelated: string };

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const isRedisCluster = (apiVersion: string | undefined, kind: string | undefined) =>
  kind === KIND && groupOf(apiVersion ?? '') === GROUP;
const isBackup = (apiVersion: string | undefined, kind: string | undefined) =>
  kind === BACKUP_KIND && groupOf(apiVersion ?? '') === GROUP;
const isChild = (apiVersion: string, kind: string) => childKinds.has(`${groupOf(apiVersion)}/${kind}`);

/** Owner references first (set by the reconciler), then the cluster label. */
export function ownerKeysOf(namespace: string, meta: ObjectMetaLike): string[] {
  const owners = (meta.ownerReferences ?? []).filter(
    (o) => isRedisCluster(o.apiVersion, o.kind) && isValidRef({ namespace, name: o.name }),
  );
  if (owners.length > 0) return [...new Set(owners.map((o) => toKey({ namespace, name: o.name! })))];
  const label = meta.labels?.[LABEL_CLUSTER];
  return label !== undefined && isValidRef({ namespace, name: label }) ? [toKey({ namespace, name: label })] : [];
}

/** Candidate cluster names for a child name: "a-b-0" -> ["a-b-0", "a-b", "a"]. */
export function namePrefixes(name: string): string[] {
  const parts = name.split('-');
  return parts.map((_, i) => parts.slice(0, parts.length - i).join('-')).filter((n) => n.length > 0);
}

/** A backup concerns the RedisCluster its spec.clusterName names (a user's backup has no owner). */
function backupMapping(namespace: string, name: string, object: LiveObject): Mapping {
  const cluster = (object.spec as { clusterName?: unknown } | undefined)?.clusterName;
  return typeof cluster === 'string' && isValidRef({ namespace, name: cluster })
    ? { keys: [toKey({ namespace, name: cluster })] }
    : { unrelated: `RedisClusterBackup ${namespace}/${name} names no RedisCluster (spec.clusterName)` };
}

export async function toKeys(event: EventFields, lookup?: OwnerLookup): Promise<Mapping> {
  const parsed = parseEventType(event.type);
  if (!parsed) return { unrelated: `unsupported event type "${event.type}"` };
  const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as KubeObjectLike &
    Partial<ObjectRef>;

  if (parsed.mode === 'resource') {
    const namespace = data.metadata?.namespace ?? '';
    const name = data.metadata?.name ?? '';
    if (!isValidRef({ namespace, name })) return { unrelated: 'event data is not a namespaced Kubernetes object' };
    if (isRedisCluster(data.apiVersion, data.kind)) return { keys: [toKey({ namespace, name })] };
    if (isBackup(data.apiVersion, data.kind)) return backupMapping(namespace, name, data);
    if (!isChild(data.apiVersion ?? '', data.kind ?? ''))
      return { unrelated: `kind ${data.apiVersion}/${data.kind} is not watched by knredis` };
    const keys = ownerKeysOf(namespace, data.metadata ?? {});
    return keys.length > 0 ? { keys } : { unrelated: `${data.kind} ${namespace}/${name} belongs to no RedisCluster` };
  }

  // Ref mode: the data is the object's own reference (Knative v0.50's getRef: apiVersion, kind,
  // name, namespace of the watched object itself), so a child's owner needs the lookup.
  const ref = {
    apiVersion: String(data.apiVersion ?? ''),
    kind: String(data.kind ?? ''),
    namespace: String(data.namespace ?? ''),
    name: String(data.name ?? ''),
  };
  if (!isValidRef(ref)) return { unrelated: 'event data is not a reference to a namespaced object' };
  if (isRedisCluster(ref.apiVersion, ref.kind)) return { keys: [toKey(ref)] };
  if (ref.apiVersion === 'v1' && ref.kind === 'Secret') {
    if (!lookup) return { unrelated: 'Secret events need the API server lookup, which is not configured' };
    const users = await lookup.clustersUsingSecret(ref.namespace, ref.name);
    return users.length > 0
      ? { keys: users.map((name) => toKey({ namespace: ref.namespace, name })) }
      : { unrelated: `Secret ${ref.namespace}/${ref.name} is read by no RedisCluster` };
  }
  if (!isChild(ref.apiVersion, ref.kind) && !isBackup(ref.apiVersion, ref.kind))
    return { unrelated: `kind ${ref.apiVersion}/${ref.kind} is not watched by knredis` };
  if (!lookup)
    return { unrelated: 'reference-mode events of child objects need the API server lookup, which is not configured' };
  const live = await lookup.readObject(ref);
  if (live && isBackup(ref.apiVersion, ref.kind)) return backupMapping(ref.namespace, ref.name, live);
  const keys = live
    ? ownerKeysOf(ref.namespace, live.metadata ?? {})
    : (await lookup.existingClusters(ref.namespace, namePrefixes(ref.name))).map((name) =>
        toKey({ namespace: ref.namespace, name }),
      );
  return keys.length > 0
    ? { keys }
    : { unrelated: `${ref.kind} ${ref.namespace}/${ref.name} belongs to no RedisCluster` };
}
