// Desired children applied with server-side apply, only those whose desired hash differs from
// what the API server holds, so an unchanged cluster costs no write. The auth Secret is
// generated once when the spec names none, and never rewritten (its password must not change).
import { randomBytes } from 'node:crypto';
import type { KubernetesObject, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { withDefaults } from '../../shared/core/api/defaults.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import type { Observed } from '../../shared/core/reconcile/observed.ts';
import { ANNOTATION_HASH, hashOf, type OwnerCluster } from '../../shared/core/resources/meta.ts';
import {
  desiredClientService,
  desiredConfigMap,
  desiredHeadlessService,
  desiredPodDisruptionBudget,
  desiredSecret,
} from '../../shared/core/resources/objects.ts';
import { effectiveConfig, renderRedisConf, restartOnly } from '../../shared/core/resources/redis-conf.ts';
import { desiredStatefulSet } from '../../shared/core/resources/statefulset.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { AuthRef } from './observe.ts';

export interface ChildrenResult {
  /** Kinds of the objects written this pass (empty when all matched). */
  readonly written: string[];
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
  auth: AuthRef,
  statefulSetReplicas: number,
  existing?: Observed['children']['statefulSet'],
): KubernetesObject[] {
  const spec = withDefaults(cluster.spec);
  const owner = ownerOf(cluster);
  const config = effectiveConfig(spec.config);
  const pdb =
    spec.podDisruptionBudget?.enabled === false
      ? []
      : [desiredPodDisruptionBudget(owner, spec.podDisruptionBudget?.maxUnavailable ?? 1)];
  return [
    desiredConfigMap(owner, renderRedisConf(config)),
    desiredHeadlessService(owner, spec.exporter?.enabled === true),
    desiredClientService(owner),
    ...pdb,
    desiredStatefulSet({
      cluster: owner,
      spec,
      auth,
      restartConfigHash: hashOf(restartOnly(config)),
      replicas: statefulSetReplicas,
      ...(existing?.spec?.volumeClaimTemplates
        ? { existingClaimTemplates: existing.spec.volumeClaimTemplates.map(claimTemplateOf) }
        : {}),
    }),
  ] as KubernetesObject[];
}

export async function applyChildren(
  kube: KubeClient,
  cluster: RedisCluster,
  observed: Observed,
  auth: AuthRef,
  statefulSetReplicas: number,
  signal?: AbortSignal,
): Promise<ChildrenResult> {
  const written: string[] = [];
  if (!observed.children.secret && !auth.external) {
    await kube.apply(
      desiredSecret(ownerOf(cluster), randomBytes(24).toString('base64url')) as KubernetesObject,
      signal,
    );
    written.push('Secret');
  }
  const { configMap, headlessService, clientService, podDisruptionBudget, statefulSet } = observed.children;
  const idOf = (o: KubernetesObject) => `${o.kind}/${o.metadata?.name}`;
  const current = new Map(
    [configMap, headlessService, clientService, podDisruptionBudget, statefulSet]
      .filter((o) => o !== undefined)
      .map((o) => [idOf(o as KubernetesObject), o as KubernetesObject]),
  );
  const wanted = desiredChildren(cluster, auth, statefulSetReplicas, statefulSet);
  for (const object of wanted) {
    if (
      current.get(idOf(object))?.metadata?.annotations?.[ANNOTATION_HASH] ===
      object.metadata?.annotations?.[ANNOTATION_HASH]
    )
      continue;
    await kube.apply(object, signal);
    written.push(object.kind ?? '');
  }
  if (podDisruptionBudget && !wanted.some((o) => o.kind === 'PodDisruptionBudget')) {
    await kube.delete({ ...podDisruptionBudget, apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' }, {}, signal);
    written.push('PodDisruptionBudget');
  }
  return { written };
}

/** The part of a stored claim template that was applied (the API server adds status and defaults). */
function claimTemplateOf(t: V1PersistentVolumeClaim): V1PersistentVolumeClaim {
  return {
    metadata: { name: t.metadata?.name ?? '', ...(t.metadata?.labels ? { labels: t.metadata.labels } : {}) },
    ...(t.spec ? { spec: t.spec } : {}),
  };
}
