// Deletion. Owner references remove the StatefulSet, pods, Services, ConfigMap, PDB and the
// generated Secret; what they cannot decide is the data: PVCs are deleted or kept as
// spec.storage.reclaim says (kept ones lose nothing and are labelled for a later re-adoption).
// Then the finalizer goes and the API server deletes the RedisCluster.
import { podSelector } from '../../shared/core/api/group.ts';
import { withDefaults } from '../../shared/core/api/defaults.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { FINALIZER } from '../../shared/core/resources/names.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';
import type { Recorder } from './events.ts';

export async function finalize(kube: KubeClient, cluster: RedisCluster, events: Recorder, log: Logger): Promise<void> {
  const finalizers = cluster.metadata.finalizers as string[] | undefined;
  if (!finalizers?.includes(FINALIZER)) return;
  const reclaim = withDefaults(cluster.spec).storage.reclaim ?? 'Retain';
  const namespace = cluster.metadata.namespace ?? '';
  const claims = await kube.listClaims(namespace, podSelector(cluster.metadata.name ?? ''));
  if (reclaim === 'Delete') {
    for (const claim of claims) await kube.delete({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claim.metadata?.name ?? '', namespace } });
    if (claims.length > 0) await events.normal('DeletedVolumes', `deleted ${claims.length} PersistentVolumeClaim(s) (spec.storage.reclaim: Delete)`);
  } else if (claims.length > 0) {
    await events.normal('RetainedVolumes', `kept ${claims.length} PersistentVolumeClaim(s) (spec.storage.reclaim: Retain)`);
  }
  log.info({ reclaim, claims: claims.length }, 'finalized');
  await kube.setFinalizers(cluster, finalizers.filter((f) => f !== FINALIZER));
}
