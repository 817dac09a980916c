// Desired children applied with server-side apply, only those whose desired hash differs from
// what the API server holds, so an unchanged cluster costs no write. The auth Secret is
// generated once when the spec names none, and never rewritten by the operator. The pods read
// the password in force from the operator's record (rotation-record.ts), so a changed Secret is
// rolled to by a live rotation, not by restarts. The monitoring user's Secret is generated
// once and never rotated (monitor-user.ts).
// A larger spec.storage.size grows the claims and replaces the StatefulSet (volume-growth.ts).
// spec.externalAccess adds a Service per node; those no node needs go after the engine's pass
// (plan-kube.ts), once no node announces their addresses.
import { randomBytes } from 'node:crypto';
import { ApiException, type KubernetesObject, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { withDefaults } from '../../shared/core/api/defaults.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import type { Observed } from '../../shared/core/reconcile/observed.ts';
import { activeSecretRef, desiredActiveSecret } from '../../shared/core/reconcile/rotation-record.ts';
import { ANNOTATION_HASH, hashOf, type OwnerCluster } from '../../shared/core/resources/meta.ts';
import { desiredMonitorSecret, monitorHashOf, monitorSecretName } from '../../shared/core/resources/monitor-user.ts';
import {
  desiredClientService,
  desiredConfigMap,
  desiredHeadlessService,
  desiredPodDisruptionBudget,
  desiredSecret,
} from '../../shared/core/resources/objects.ts';
import { effectiveConfig, renderRedisConf, restartOnly } from '../../shared/core/resources/redis-conf.ts';
import { desiredStatefulSet, podCount } from '../../shared/core/resources/statefulset.ts';
import { desiredExternalService, podsWithExternalService } from '../../shared/core/resources/external-access.ts';
import {
  DEFAULT_OPERATOR_NAMESPACE,
  desiredNetworkPolicy,
  isNetworkPolicyEnabled,
  type OperatorPeer,
} from '../../shared/core/resources/network-policy.ts';
import type { VolumePlan } from '../../shared/core/resources/volume-growth.ts';
import { volumePlanOf } from '../../shared/core/reconcile/volumes.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import { passwordHash } from '../../shared/io/redis/auth.ts';
import type { Recorder } from './events.ts';
import { passwordOf, type AuthRef } from './observe.ts';

export interface ChildrenResult {
  /** Kinds of the objects written this pass (empty when all matched). */
  readonly written: string[];
  /** While a volume is smaller than spec.storage.size, what is happening (for status). */
  readonly resizing?: string;
}

export function ownerOf(cluster: RedisCluster): OwnerCluster {
  return {
    metadata: {
      name: cluster.metadata.name ?? '',
      namespace: cluster.metadata.namespace ?? '',
      uid: cluster.metadata.uid ?? '',
    },
  };
}

export function desiredChildren(
  cluster: RedisCluster,
  statefulSetReplicas: number,
  existing?: Observed['children']['statefulSet'],
  operator: OperatorPeer = { namespace: DEFAULT_OPERATOR_NAMESPACE },
  presentPods: readonly string[] = [],
): KubernetesObject[] {
  const spec = withDefaults(cluster.spec);
  const owner = ownerOf(cluster);
  const config = effectiveConfig(spec.config, spec.tls);
  const pdb =
    spec.podDisruptionBudget?.enabled === false
      ? []
      : [desiredPodDisruptionBudget(owner, spec.podDisruptionBudget?.maxUnavailable ?? 1)];
  const networkPolicy = isNetworkPolicyEnabled(spec) ? [desiredNetworkPolicy(owner, spec, operator)] : [];
  // spec.externalAccess: a Service per node, before any node announces its address
  const access = spec.externalAccess;
  const external = access
    ? podsWithExternalService(owner.metadata.name, podCount(spec), presentPods).map((pod) =>
        desiredExternalService(owner, pod, access),
      )
    : [];
  return [
    desiredConfigMap(owner, renderRedisConf(config)),
    desiredHeadlessService(owner, spec.exporter?.enabled === true),
    desiredClientService(owner),
    ...pdb,
    ...networkPolicy,
    ...external,
    desiredStatefulSet({
      cluster: owner,
      spec,
      auth: activeSecretRef(owner.metadata.name),
      monitor: { secretName: monitorSecretName(owner.metadata.name) },
      restartConfigHash: hashOf(restartOnly(config)),
      replicas: statefulSetReplicas,
      ...(existing?.spec?.volumeClaimTemplates
        ? { existingClaimTemplates: existing.spec.volumeClaimTemplates.map(claimTemplateOf) }
        : {}),
    }),
  ] as KubernetesObject[];
}

export interface ChildrenContext {
  readonly kube: KubeClient;
  readonly cluster: RedisCluster;
  readonly observed: Observed;
  readonly auth: AuthRef;
  readonly signal?: AbortSignal;
  readonly operator: OperatorPeer;
}

export async function applyChildren(
  context: ChildrenContext,
  statefulSetReplicas: number,
  events?: Recorder,
): Promise<ChildrenResult> {
  const { kube, cluster, observed, auth, signal } = context;
  const written: string[] = [];
  let password = passwordOf(observed.children.secret, auth.key);
  if (!observed.children.secret && !auth.external) {
    password = randomBytes(24).toString('base64url');
    await kube.apply(desiredSecret(ownerOf(cluster), password) as KubernetesObject, signal);
    written.push('Secret');
  }
  // The pods' password is the one in force; at first it is the wanted one (rotation.ts moves it).
  if (!observed.children.activeSecret && password) {
    await kube.apply(
      desiredActiveSecret(ownerOf(cluster), { password, hash: passwordHash(password) }) as never,
      signal,
    );
    written.push('Secret');
  }
  // The monitoring user's password: generated once, before the pods that read it; never rotated.
  if (!monitorHashOf(observed.children.monitorSecret)) {
    const monitor = randomBytes(24).toString('base64url');
    await kube.apply(
      desiredMonitorSecret(ownerOf(cluster), { password: monitor, hash: passwordHash(monitor) }) as never,
      signal,
    );
    written.push('Secret');
  }
  const { configMap, headlessService, clientService, podDisruptionBudget, networkPolicy, statefulSet } =
    observed.children;
  const volumes = volumePlanOf(withDefaults(cluster.spec), observed);
  written.push(...(await growVolumes(kube, cluster, volumes, events)));
  const idOf = (o: KubernetesObject) => `${o.kind}/${o.metadata?.name}`;
  const current = new Map(
    [
      configMap,
      headlessService,
      clientService,
      podDisruptionBudget,
      networkPolicy,
      statefulSet,
      ...(observed.children.externalServices ?? []),
    ]
      .filter((o) => o !== undefined)
      .map((o) => [idOf(o as KubernetesObject), o as KubernetesObject]),
  );
  const wanted = desiredChildren(
    cluster,
    statefulSetReplicas,
    statefulSet,
    context.operator,
    observed.pods.map((p) => p.name),
  );
  for (const object of wanted) {
    if (object.kind === 'StatefulSet' && volumes.statefulSet !== 'apply') continue;
    if (
      current.get(idOf(object))?.metadata?.annotations?.[ANNOTATION_HASH] ===
      object.metadata?.annotations?.[ANNOTATION_HASH]
    )
      continue;
    await kube.apply(object, signal);
    written.push(object.kind ?? '');
  }
  // Children turned off in the spec go.
  const optional = [
    [podDisruptionBudget, 'policy/v1', 'PodDisruptionBudget'],
    [networkPolicy, 'networking.k8s.io/v1', 'NetworkPolicy'],
  ] as const;
  for (const [existing, apiVersion, kind] of optional) {
    if (!existing || wanted.some((o) => o.kind === kind)) continue;
    await kube.delete({ ...existing, apiVersion, kind }, {}, signal);
    written.push(kind);
  }
  return { written, ...(volumes.resizing ? { resizing: volumes.resizing } : {}) };
}

/**
 * Raises the claims below the spec, and deletes a StatefulSet whose claim template is smaller,
 * orphaning its pods (they keep serving; the next pass creates the StatefulSet again).
 */
async function growVolumes(
  kube: KubeClient,
  cluster: RedisCluster,
  volumes: VolumePlan,
  events: Recorder | undefined,
): Promise<string[]> {
  const namespace = cluster.metadata.namespace ?? '';
  const size = withDefaults(cluster.spec).storage.size ?? '1Gi';
  const written: string[] = [];
  for (const name of volumes.expand) {
    try {
      await kube.apply({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace },
        spec: { resources: { requests: { storage: size } } },
      } as KubernetesObject);
      written.push('PersistentVolumeClaim');
    } catch (error) {
      // The StorageClass does not allow expansion (the webhook refuses that growth; a class
      // changed since): say so, and go on: new claims still get the new size.
      if (!(error instanceof ApiException) || (error.code !== 403 && error.code !== 422)) throw error;
      await events?.warning('VolumeExpansionRefused', `cannot grow ${name} to ${size}: ${apiMessage(error)}`);
    }
  }
  if (volumes.expand.length > 0)
    await events?.normal('ResizingVolumes', `growing ${volumes.expand.length} volume(s) to ${size}`);
  if (volumes.statefulSet === 'replace') {
    const name = cluster.metadata.name ?? '';
    await kube.delete(
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace } },
      { propagation: 'Orphan' },
    );
    written.push('StatefulSet');
    await events?.normal(
      'ReplacingStatefulSet',
      `recreating StatefulSet ${name} with ${size} volume claims; its pods keep running`,
    );
  }
  return written;
}

function apiMessage(error: ApiException<unknown>): string {
  const body = error.body as { message?: string } | string | undefined;
  return (typeof body === 'object' ? body?.message : body) ?? `HTTP ${error.code}`;
}

/** The part of a stored claim template that was applied (the API server adds status and defaults). */
function claimTemplateOf(t: V1PersistentVolumeClaim): V1PersistentVolumeClaim {
  return {
    metadata: { name: t.metadata?.name ?? '', ...(t.metadata?.labels ? { labels: t.metadata.labels } : {}) },
    ...(t.spec ? { spec: t.spec } : {}),
  };
}
