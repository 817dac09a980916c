// Deletion. Owner references remove the StatefulSet, pods, Services, ConfigMap, PDB and the
// generated Secret; what they cannot decide is the data: PVCs are deleted or kept as
// spec.storage.reclaim says (kept ones lose nothing and are labelled for a later re-adoption).
// Then the finalizer goes and the API server deletes the RedisCluster.
//
// A claim is this cluster's only when BOTH hold: it carries the labels knredis puts on its
// claims (ownedSelector), and its name is one the StatefulSet gives its claims,
// `<template>-<sts>-<ordinal>`. Another workload that copies the labels, or happens to use
// such a name, keeps its volumes.
import type { V1PersistentVolumeClaim, V1StatefulSet } from '@kubernetes/client-node';
import { ownedSelector } from '../../shared/core/api/group.ts';
import { withDefaults } from '../../shared/core/api/defaults.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { DATA_VOLUME, FINALIZER, childNames, claimOrdinal } from '../../shared/core/resources/names.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';
import type { Recorder } from './events.ts';

/** The claims knredis created for this cluster: by its labels and by the StatefulSet's claim names. */
async function ownedClaims(
  kube: KubeClient,
  namespace: string,
  cluster: string,
  signal?: AbortSignal,
): Promise<V1PersistentVolumeClaim[]> {
  const sts = childNames(cluster).statefulSet;
  // The StatefulSet may be gone already (foreground deletion); its one template is DATA_VOLUME.
  const existing = await kube.read<V1StatefulSet>('apps/v1', 'StatefulSet', namespace, sts, signal);
  const templates = [
    DATA_VOLUME,
    ...(existing?.spec?.volumeClaimTemplates ?? []).map((t) => t.metadata?.name ?? DATA_VOLUME),
  ];
  const labelled = await kube.listClaims(namespace, ownedSelector(cluster), signal);
  return labelled.filter((claim) => claimOrdinal(templates, sts, claim.metadata?.name ?? '') !== undefined);
}

export async function finalize(
  kube: KubeClient,
  cluster: RedisCluster,
  events: Recorder,
  log: Logger,
  signal?: AbortSignal,
): Promise<void> {
  const finalizers = cluster.metadata.finalizers as string[] | undefined;
  if (!finalizers?.includes(FINALIZER)) return;
  const reclaim = withDefaults(cluster.spec).storage.reclaim ?? 'Retain';
  const namespace = cluster.metadata.namespace ?? '';
  const claims = await ownedClaims(kube, namespace, cluster.metadata.name ?? '', signal);
  if (reclaim === 'Delete') {
    for (const claim of claims)
      await kube.delete(
        { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claim.metadata?.name ?? '', namespace } },
        {},
        signal,
      );
    if (claims.length > 0)
      await events.normal(
        'DeletedVolumes',
        `deleted ${claims.length} PersistentVolumeClaim(s) (spec.storage.reclaim: Delete)`,
      );
  } else if (claims.length > 0) {
    await events.normal(
      'RetainedVolumes',
      `kept ${claims.length} PersistentVolumeClaim(s) (spec.storage.reclaim: Retain)`,
    );
  }
  log.info({ reclaim, claims: claims.length }, 'finalized');
  await kube.setFinalizers(
    cluster,
    finalizers.filter((f) => f !== FINALIZER),
    signal,
  );
}
