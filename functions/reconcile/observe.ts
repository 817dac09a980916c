// Observe: everything one pass needs from Kubernetes, as plain data. Reads only; the pods,
// nodes and children of one RedisCluster from the worker's watch-fed cache once it is synced
// (shared/io/kube/child-cache.ts), else from the API server; the auth password always from the
// API server (kept out of the result's printable parts: it travels only to the Redis connection).
import type {
  KubernetesObject,
  V1ConfigMap,
  V1NetworkPolicy,
  V1Node,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodDisruptionBudget,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { LABEL_COMPONENT, ownedSelector } from '../../shared/core/api/group.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import type { Observed, ObservedClaim, ObservedPod } from '../../shared/core/reconcile/observed.ts';
import { activeSecretName } from '../../shared/core/reconcile/rotation-record.ts';
import { EXTERNAL_COMPONENT, nodeAddressOf } from '../../shared/core/resources/external-access.ts';
import { monitorSecretName } from '../../shared/core/resources/monitor-user.ts';
import { ANNOTATION_NODE_ID } from '../../shared/core/resources/meta.ts';
import { childNames, DATA_VOLUME, ordinalOf, PASSWORD_KEY } from '../../shared/core/resources/names.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';

export interface AuthRef {
  readonly name: string;
  readonly key: string;
  /** The user named a Secret (never generated or deleted by the operator). */
  readonly external: boolean;
}

export function authRefOf(cluster: RedisCluster): AuthRef {
  const ref = cluster.spec.auth?.secretRef;
  return ref
    ? { name: ref.name, key: ref.key ?? PASSWORD_KEY, external: true }
    : { name: childNames(cluster.metadata.name ?? '').generatedSecret, key: PASSWORD_KEY, external: false };
}

export async function observeChildren(
  kube: KubeClient,
  cluster: RedisCluster,
  now: number,
  signal?: AbortSignal,
): Promise<Observed> {
  const namespace = cluster.metadata.namespace ?? '';
  const clusterName = cluster.metadata.name ?? '';
  const names = childNames(clusterName);
  const auth = authRefOf(cluster);
  const secrets = observeSecrets(kube, namespace, clusterName, auth, signal);
  const cache = kube.cache?.synced ? kube.cache : undefined;
  const read = <T extends KubernetesObject>(apiVersion: string, kind: string, name: string) =>
    cache
      ? Promise.resolve(cache.child<T>(kind, namespace, name))
      : kube.read<T>(apiVersion, kind, namespace, name, signal);
  // By the labels only knredis' own pods and claims carry: another workload's, with the
  // recommended labels and a name like ours, must never be restarted, deleted or annotated.
  const owned = ownedSelector(clusterName);
  const [named, pods, claims, services] = await Promise.all([
    allOf({
      statefulSet: read<V1StatefulSet>('apps/v1', 'StatefulSet', names.statefulSet),
      configMap: read<V1ConfigMap>('v1', 'ConfigMap', names.configMap),
      headlessService: read<V1Service>('v1', 'Service', names.headlessService),
      clientService: read<V1Service>('v1', 'Service', names.clientService),
      podDisruptionBudget: read<V1PodDisruptionBudget>('policy/v1', 'PodDisruptionBudget', names.podDisruptionBudget),
      networkPolicy: read<V1NetworkPolicy>('networking.k8s.io/v1', 'NetworkPolicy', names.networkPolicy),
    }),
    cache ? cache.owned<V1Pod>('Pod', namespace, clusterName) : kube.listPods(namespace, owned, signal),
    cache
      ? cache.owned<V1PersistentVolumeClaim>('PersistentVolumeClaim', namespace, clusterName)
      : kube.listClaims(namespace, owned, signal),
    // spec.externalAccess' Services, by their component label (any pod's, present or gone)
    cache
      ? cache.owned<V1Service>('Service', namespace, clusterName)
      : kube.listServices(namespace, `${owned},${LABEL_COMPONENT}=${EXTERNAL_COMPONENT}`, signal),
  ]);
  // Only the nodes the pods are on; a whole Node list only without the cache.
  const nodeOf: (name: string) => V1Node | undefined = cache
    ? (name) => cache.node(name)
    : (
        (nodes) => (name: string) =>
          nodes.get(name)
      )(new Map((await kube.listNodes(signal)).map((n) => [n.metadata?.name ?? '', n])));
  return {
    children: {
      ...named,
      externalServices: services.filter((s) => s.metadata?.labels?.[LABEL_COMPONENT] === EXTERNAL_COMPONENT),
      ...(await secrets),
    },
    pods: pods.flatMap((pod) => toObservedPod(pod, names.statefulSet, nodeOf, now)),
    claims: claims.flatMap((claim) => toObservedClaim(claim, names.statefulSet)),
  };
}

/** Each promise's value under its key. */
async function allOf<T extends Record<string, Promise<unknown>>>(
  promises: T,
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const entries = await Promise.all(Object.entries(promises).map(async ([k, p]) => [k, await p] as const));
  return Object.fromEntries(entries) as { [K in keyof T]: Awaited<T[K]> };
}

/**
 * The auth Secret, the password in force and the monitoring user's, always from the API server
 * (a password is never served stale, nor cached): one list of the Secrets knredis labelled for
 * this cluster, then a read by name of any not in it (a user's Secret, or one whose labels were
 * removed: its password must be found, never replaced by a newly generated one).
 */
async function observeSecrets(
  kube: KubeClient,
  namespace: string,
  clusterName: string,
  auth: AuthRef,
  signal?: AbortSignal,
): Promise<Pick<Observed['children'], 'secret' | 'activeSecret' | 'monitorSecret'>> {
  const listed = await kube.listSecrets(namespace, ownedSelector(clusterName), signal);
  const byName = new Map(listed.map((s) => [s.metadata?.name ?? '', s]));
  const get = (name: string) => byName.get(name) ?? kube.read<V1Secret>('v1', 'Secret', namespace, name, signal);
  const [secret, activeSecret, monitorSecret] = await Promise.all([
    get(auth.name),
    get(activeSecretName(clusterName)),
    get(monitorSecretName(clusterName)),
  ]);
  return { secret, activeSecret, monitorSecret };
}

function toObservedPod(
  pod: V1Pod,
  statefulSet: string,
  nodeOf: (name: string) => V1Node | undefined,
  now: number,
): ObservedPod[] {
  const name = pod.metadata?.name ?? '';
  const ordinal = ordinalOf(statefulSet, name);
  if (ordinal === undefined) return [];
  const nodeName = pod.spec?.nodeName;
  const node = nodeName ? nodeOf(nodeName) : undefined;
  const zone = node?.metadata?.labels?.['topology.kubernetes.io/zone'];
  const ip = pod.status?.podIP;
  const revision = pod.metadata?.labels?.['controller-revision-hash'];
  const lost = nodeName ? nodeLostSince(node, now) : undefined;
  const nodeAddress = nodeAddressOf(node) ?? pod.status?.hostIP;
  return [
    {
      name,
      ordinal,
      ...(ip ? { ip } : {}),
      ...(nodeName ? { nodeName } : {}),
      ...(zone ? { zone } : {}),
      ...(pod.status?.phase ? { phase: pod.status.phase } : {}),
      ...(revision ? { revision } : {}),
      ...(lost !== undefined ? { nodeLostSince: lost } : {}),
      ...(nodeAddress ? { nodeAddress } : {}),
      ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      terminating: !!pod.metadata?.deletionTimestamp,
      restartCount: pod.status?.containerStatuses?.reduce((n, c) => n + (c.restartCount ?? 0), 0) ?? 0,
    },
  ];
}

/** Since when the node has not been Ready (a deleted node: now), or undefined when it is. */
function nodeLostSince(node: V1Node | undefined, now: number): number | undefined {
  if (!node) return now;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status === 'True') return undefined;
  const since = ready?.lastTransitionTime ? new Date(ready.lastTransitionTime).getTime() : now;
  return Number.isFinite(since) ? since : now;
}

export function passwordOf(secret: V1Secret | undefined, key: string): string | undefined {
  const stored = secret?.data?.[key];
  return stored ? Buffer.from(stored, 'base64').toString('utf8') : undefined;
}

/** `data-<pod>`, the claim a volumeClaimTemplate makes for a pod. */
function toObservedClaim(claim: V1PersistentVolumeClaim, statefulSet: string): ObservedClaim[] {
  const name = claim.metadata?.name ?? '';
  const pod = name.startsWith(`${DATA_VOLUME}-`) ? name.slice(DATA_VOLUME.length + 1) : '';
  const ordinal = ordinalOf(statefulSet, pod);
  if (ordinal === undefined) return [];
  const nodeId = claim.metadata?.annotations?.[ANNOTATION_NODE_ID];
  const requested = claim.spec?.resources?.requests?.storage;
  const capacity = claim.status?.capacity?.storage;
  return [
    {
      name,
      pod,
      ordinal,
      ...(nodeId ? { nodeId } : {}),
      ...(requested ? { requested } : {}),
      ...(capacity ? { capacity } : {}),
    },
  ];
}
