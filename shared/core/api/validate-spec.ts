// The admission rules of a v1beta1 RedisCluster the schema cannot express: changes that depend
// on the cluster's state or that the operator cannot perform, and warnings for risky changes.
// Each message names the field and says what to do instead.
import { withDefaults } from './defaults.ts';
import { ANNOTATION_V1BETA1_SPEC, ANNOTATION_V1BETA1_STATUS } from './group.ts';
import { jsonEqual } from './json.ts';
import type { RedisCluster } from './v1beta1.ts';
import { checkBackupAndRestore } from './validate-backup.ts';
import { checkConfig } from './validate-config.ts';
import { checkScheduling, isQualifiedName } from './validate-scheduling.ts';
import { emptyVerdict, type Verdict } from './verdict.ts';
import { compareVersions } from './versions.ts';
import { compareQuantities } from '../resources/quantity.ts';

/** Most masters one scale-in step may remove: their slots must fit on the masters that stay. */
export function maxMastersRemovedPerStep(masters: number): number {
  return Math.floor(masters / 2);
}

export function scaleInMessage(field: string, from: number, to: number, unit = 'masters'): string | undefined {
  const removable = maxMastersRemovedPerStep(from);
  if (to >= from || from - to <= removable) return undefined;
  return (
    `${field}: scaling in from ${from} to ${to} ${unit} removes ${from - to} at once, but at most ${removable} (half) can go in one step ` +
    `because their slots move to the ${unit} that stay: scale to ${from - removable} first, then to ${to}`
  );
}

/** The StorageClass of the volumes, as the webhook read it (absent: unknown). */
export interface StorageClassInfo {
  readonly name: string;
  readonly allowVolumeExpansion: boolean;
}

export interface ValidateOptions {
  /** Words a too-large scale-in in the request's own version (v1alpha1 counts nodes). */
  scaleInMessage?: (fromMasters: number, toMasters: number) => string | undefined;
  storageClass?: StorageClassInfo;
}

/** The StorageClass an UPDATE that grows spec.storage.size needs to know about ('' = the default class). */
export function growsStorage(obj: RedisCluster, old: RedisCluster): { className: string } | undefined {
  const size = withDefaults(obj.spec ?? {}).storage;
  const before = withDefaults(old.spec ?? {}).storage;
  const order = compareQuantities(size.size, before.size);
  return order !== undefined && order > 0 ? { className: size.className ?? '' } : undefined;
}

export function validateV1beta1(
  obj: RedisCluster,
  old: RedisCluster | undefined,
  options: ValidateOptions = {},
): Verdict {
  const v = emptyVerdict();
  const spec = withDefaults(obj.spec ?? {});
  for (const key of [ANNOTATION_V1BETA1_SPEC, ANNOTATION_V1BETA1_STATUS]) {
    if (obj.metadata?.annotations?.[key] !== undefined && old?.metadata?.annotations?.[key] === undefined)
      v.denials.push(`metadata.annotations[${key}] is reserved for conversion from cache.redis.io/v1alpha1: remove it`);
  }
  checkConfig(spec.config, old ? (old.spec?.config ?? {}) : undefined, v, spec.version);
  // Judged only when they change: a finalizer update of an object admitted before these rules must pass.
  const scheduling = ({ nodeSelector, tolerations, affinity }: typeof spec) => ({
    nodeSelector,
    tolerations,
    affinity,
  });
  if (!old || !jsonEqual(scheduling(spec), scheduling(withDefaults(old.spec ?? {}))))
    v.denials.push(...checkScheduling(spec));
  checkTls(obj, old, v);
  checkExternalAccess(obj, old, v);
  checkBackupAndRestore(obj, old, v);
  if (old === undefined) {
    if (spec.replicasPerMaster === 0)
      v.warnings.push('spec.replicasPerMaster is 0: without replicas a failed master takes its slots offline');
    if (spec.storage.reclaim === 'Delete')
      v.warnings.push('spec.storage.reclaim is Delete: deleting this RedisCluster deletes its data');
    if (spec.paused) v.warnings.push('spec.paused is true: the operator will not create, heal or scale this cluster');
    return v;
  }
  const before = withDefaults(old.spec ?? {});
  const status = old.status ?? {};
  // 1: topology, one kind of change at a time
  if (spec.masters !== before.masters && spec.replicasPerMaster !== before.replicasPerMaster) {
    v.denials.push(
      'spec.masters and spec.replicasPerMaster cannot change in one update: the operator changes the topology one step at a time; change one, then the other',
    );
  }
  // 2: scale-in: bounded, and only from a healthy, settled cluster
  if (spec.masters < before.masters) {
    const tooFar = (options.scaleInMessage ?? ((from, to) => scaleInMessage('spec.masters', from, to)))(
      before.masters,
      spec.masters,
    );
    if (tooFar) v.denials.push(tooFar);
    if (status.operation) {
      v.denials.push(
        `spec.masters: cannot scale in while ${status.operation.type} is in progress${status.operation.progress ? ` (${status.operation.progress})` : ''}: wait until it finishes`,
      );
    } else if (status.readyMasters !== undefined && status.readyMasters < before.masters) {
      v.denials.push(
        `spec.masters: cannot scale in while only ${status.readyMasters} of ${before.masters} masters are ready: the slots of the removed masters need healthy masters to move to`,
      );
    }
    if (!tooFar)
      v.warnings.push(
        `spec.masters: scaling in from ${before.masters} to ${spec.masters} moves the slots of ${before.masters - spec.masters} masters`,
      );
  }
  // 3: fewer replicas only when no shard depends on them
  const degraded = status.conditions?.some((c) => c.type === 'Degraded' && c.status === 'True');
  if (spec.replicasPerMaster < before.replicasPerMaster && degraded) {
    v.denials.push(
      'spec.replicasPerMaster: cannot remove replicas while the cluster is Degraded: a replica may be the only healthy copy of a shard',
    );
  }
  if (spec.replicasPerMaster === 0 && before.replicasPerMaster > 0)
    v.warnings.push('spec.replicasPerMaster is 0: without replicas a failed master takes its slots offline');
  // 4: versions only go forward
  const order = compareVersions(spec.version, before.version);
  if (order < 0) {
    v.denials.push(
      `spec.version: downgrading Redis from ${before.version} to ${spec.version} is not supported: an older Redis cannot load the data files a newer one wrote`,
    );
  } else if (order > 0) {
    v.warnings.push(
      `spec.version: upgrading Redis from ${before.version} to ${spec.version} restarts every node, one at a time`,
    );
  }
  // 5: storage and credentials
  if (spec.storage.reclaim === 'Delete' && before.storage.reclaim !== 'Delete')
    v.warnings.push('spec.storage.reclaim is Delete: deleting this RedisCluster deletes its data');
  const growth = growsStorage(obj, old);
  if (growth && options.storageClass && !options.storageClass.allowVolumeExpansion) {
    v.denials.push(
      `spec.storage.size: the volumes cannot grow from ${before.storage.size} to ${spec.storage.size}: StorageClass ${options.storageClass.name} does not allow volume expansion (allowVolumeExpansion is not true); keep ${before.storage.size}, or ask the cluster's administrator to allow expansion on that class`,
    );
  } else if (growth) {
    v.warnings.push(
      `spec.storage.size: growing every volume from ${before.storage.size} to ${spec.storage.size}; the pods keep running`,
    );
  }
  if (!jsonEqual(spec.auth?.secretRef, before.auth?.secretRef))
    v.warnings.push('spec.auth.secretRef changed: the password rotates and clients using the old one are refused');
  if (spec.paused && !before.paused)
    v.warnings.push('spec.paused is true: the operator will not heal, scale or update this cluster');
  return v;
}

/** spec.externalAccess opens every node's ports beyond the cluster; say what that means. */
function checkExternalAccess(obj: RedisCluster, old: RedisCluster | undefined, v: Verdict): void {
  const access = obj.spec?.externalAccess;
  for (const key of Object.keys(access?.annotations ?? {}))
    if (!isQualifiedName(key))
      v.denials.push(
        `spec.externalAccess.annotations: ${JSON.stringify(key)} is not a valid annotation key (an optional DNS-subdomain prefix and '/', then up to 63 of [A-Za-z0-9-_.])`,
      );
  // Once, when it is set or its type changes, not on every later update.
  if (!access || old?.spec?.externalAccess?.type === access.type) return;
  v.warnings.push(
    `spec.externalAccess.type is ${access.type}: every node's client port and cluster bus port are reachable from outside Kubernetes, and the cluster bus has no authentication; keep them off untrusted networks`,
  );
  if (obj.spec?.tls)
    v.warnings.push(
      'spec.externalAccess with spec.tls: clients that verify the server reach each node at its external address, which the certificate must name (an IP SAN per node address)',
    );
  if (obj.spec?.networkPolicy?.clients)
    v.warnings.push(
      'spec.networkPolicy.clients does not restrict the Redis port while spec.externalAccess is set: traffic through node ports and load balancers comes from the nodes',
    );
}

/**
 * spec.tls names its Secret, and is set at creation only: turning TLS on or off on a live
 * cluster changes the port every client, replica and cluster-bus peer speaks to at once, and
 * a rolling restart would leave half the nodes unable to talk to the other half.
 */
function checkTls(obj: RedisCluster, old: RedisCluster | undefined, v: Verdict): void {
  const tls = obj.spec?.tls;
  if (tls && !tls.secretRef?.name)
    v.denials.push(
      'spec.tls.secretRef.name is required: name the kubernetes.io/tls Secret (tls.crt, tls.key, ca.crt) the nodes serve, e.g. the one a cert-manager Certificate writes',
    );
  if (old === undefined) {
    if (tls?.plaintext) v.warnings.push('spec.tls.plaintext is true: port 6380 still accepts unencrypted clients');
    return;
  }
  const was = old.spec?.tls !== undefined;
  if (was !== (tls !== undefined))
    v.denials.push(
      `spec.tls cannot be ${was ? 'removed from' : 'added to'} a live cluster: clients, replicas and the cluster bus would have to switch all at once; create a new RedisCluster ${was ? 'without' : 'with'} spec.tls and move the data to it`,
    );
}
