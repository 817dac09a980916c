// What a test needs to reach a RedisCluster's nodes directly: the password from its Secret
// and the placements of its running pods.
import type { PodPlacement } from '../../../shared/core/cluster/desired.ts';
import type { InstalledApi } from '../api/api-fixture.ts';

export async function clusterPassword(api: InstalledApi, namespace: string, name: string): Promise<string> {
  const secret = JSON.parse(await api.env.kubectl(['get', 'secret', `${name}-auth`, '-n', namespace, '-o', 'json'])) as { data: { password: string } };
  return Buffer.from(secret.data.password, 'base64').toString();
}

export async function podPlacements(api: InstalledApi, namespace: string): Promise<PodPlacement[]> {
  const pods = JSON.parse(await api.env.kubectl(['get', 'pods', '-n', namespace, '-o', 'json'])) as { items: { metadata: { name: string; deletionTimestamp?: string }; spec: { nodeName?: string }; status: { podIP?: string } }[] };
  return pods.items.filter((p) => p.status.podIP && !p.metadata.deletionTimestamp)
    .map((p) => ({ name: p.metadata.name, address: { ip: p.status.podIP as string, port: 6379 }, nodeName: p.spec.nodeName ?? '' }));
}
