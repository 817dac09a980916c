// What the e2e tests read from outside the operator, the way a user would: the RedisCluster and
// its pods through kubectl, the Redis nodes directly, and a worker's Prometheus metrics.
import { ApiException, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { Redis, type Cluster } from 'ioredis';
import { GROUP, PLURAL, STORAGE_VERSION } from '../../shared/core/api/group.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import type { LocalEnvironment } from '../support/local-env.ts';

export interface PodInfo {
  name: string;
  uid: string;
  node: string;
  ip: string;
  restarts: number;
  terminating: boolean;
}

/** The component the operator's Events name (functions/reconcile/events.ts). */
const OPERATOR = 'knredis';

interface KubeObject {
  kind: string;
  metadata: { name: string; resourceVersion: string };
  reason?: string;
  reportingComponent?: string;
  source?: { component?: string };
}

export class ClusterView {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;

  constructor(
    readonly env: LocalEnvironment,
    readonly namespace: string,
    readonly name: string,
  ) {
    this.custom = env.kubeConfig().makeApiClient(CustomObjectsApi);
    this.core = env.kubeConfig().makeApiClient(CoreV1Api);
  }

  private json<T>(args: string[]): Promise<T> {
    return this.env.kubectl([...args, '-n', this.namespace, '-o', 'json']).then((out) => JSON.parse(out) as T);
  }

  async get(): Promise<RedisCluster | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject({
        group: GROUP,
        version: STORAGE_VERSION,
        plural: PLURAL,
        namespace: this.namespace,
        name: this.name,
      })) as RedisCluster;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  }

  /** Polls the RedisCluster until `check` holds; the error shows its last conditions. */
  async until(
    what: string,
    check: (rc: RedisCluster | undefined) => boolean,
    timeout = 300_000,
  ): Promise<RedisCluster | undefined> {
    let last: RedisCluster | undefined;
    try {
      await this.env.waitFor(
        async () => {
          last = await this.get();
          return check(last);
        },
        { what, timeout, interval: 250 },
      );
    } catch (error) {
      const conditions = last?.status?.conditions?.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
      throw new Error(
        `${(error as Error).message}; status: ${JSON.stringify({ conditions, operation: last?.status?.operation })}`,
        { cause: error },
      );
    }
    return last;
  }

  async pods(): Promise<PodInfo[]> {
    const list = await this.core.listNamespacedPod({
      namespace: this.namespace,
      labelSelector: `app.kubernetes.io/instance=${this.name}`,
    });
    return list.items.map((p) => ({
      name: p.metadata?.name ?? '',
      uid: p.metadata?.uid ?? '',
      node: p.spec?.nodeName ?? '',
      ip: p.status?.podIP ?? '',
      restarts: p.status?.containerStatuses?.reduce((n, c) => n + c.restartCount, 0) ?? 0,
      terminating: !!p.metadata?.deletionTimestamp,
    }));
  }

  async password(): Promise<string> {
    const secret = await this.json<{ data: { password: string } }>(['get', 'secret', `${this.name}-auth`]);
    return Buffer.from(secret.data.password, 'base64').toString();
  }

  /**
   * kind/name -> resourceVersion of everything in the namespace a reconcile could write. Events
   * count only when the operator reported them: the controller-manager writes its own (a
   * Service's FailedToUpdateEndpointSlices, retried with backoff), and those are not the
   * operator's writes.
   */
  async resourceVersions(): Promise<Record<string, string>> {
    const list = await this.json<{ items: KubeObject[] }>([
      'get',
      'redisclusters,statefulsets,configmaps,secrets,services,poddisruptionbudgets,persistentvolumeclaims,pods,events',
    ]);
    return Object.fromEntries(
      list.items
        .filter((o) => o.kind !== 'Event' || o.reportingComponent === OPERATOR || o.source?.component === OPERATOR)
        .map((o) => [
          `${o.kind}/${o.metadata.name}${o.kind === 'Event' ? ` (${o.reason})` : ''}`,
          o.metadata.resourceVersion,
        ]),
    );
  }

  /** Names of the objects of `kinds` (comma-separated) labelled for this cluster. */
  async owned(kinds: string): Promise<string[]> {
    const out = await this.env.kubectl([
      'get',
      kinds,
      '-n',
      this.namespace,
      '-l',
      `app.kubernetes.io/instance=${this.name}`,
      '-o',
      'name',
    ]);
    return out.split('\n').filter(Boolean);
  }
}

export function isReady(rc: RedisCluster | undefined): boolean {
  return (
    rc?.status?.conditions?.some(
      (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === rc.metadata.generation,
    ) ?? false
  );
}

/** Ready, settled, with `masters` shards that each have `replicas` linked, ready replicas. */
export function fullShape(masters: number, replicas: number) {
  return (rc: RedisCluster | undefined): boolean =>
    isReady(rc) &&
    !rc?.status?.operation &&
    rc?.status?.slotsCovered === 16384 &&
    rc.status.shards?.length === masters &&
    rc.status.shards.every((s) => s.master?.ready && (s.replicas ?? []).filter((r) => r.ready).length === replicas);
}

/**
 * Keeps an ioredis Cluster's startup nodes on the live pods, as a client seeded with the
 * headless Service's DNS name would be. ioredis reconnects to its startup nodes when it has
 * lost every connection; after a rolling update none of the first pods' addresses is left,
 * and its commands would wait forever in the offline queue.
 */
export function followSeeds(cluster: Cluster, view: ClusterView, everyMs = 1_000): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    view
      .pods()
      .then(
        (pods) => {
          const live = pods.filter((p) => p.ip && !p.terminating).map((p) => ({ host: p.ip, port: 6379 }));
          // A private field of ioredis: there is no public way to change the seeds.
          if (live.length > 0) Reflect.set(cluster, 'startupNodes', live);
        },
        () => {},
      )
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  return () => clearInterval(timer);
}

/** Slots some node holds open (migrating or importing): a migration was cut in the middle. */
export async function openSlots(ips: string[], password: string): Promise<number> {
  let open = 0;
  await Promise.all(
    ips.map(async (ip) => {
      const node = new Redis({ host: ip, port: 6379, password, lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        const nodes = String(await node.call('CLUSTER', 'NODES'));
        const myself = nodes.split('\n').find((l) => l.includes('myself')) ?? '';
        open += (myself.match(/\[\d+-[<>]-/g) ?? []).length;
      } catch {
        /* a node that does not answer holds nothing open we could see */
      } finally {
        node.disconnect();
      }
    }),
  );
  return open;
}

/** Sum of a counter over its labels, from a Prometheus text exposition. */
export async function counter(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/**
 * Stops an operator stack after the RedisClusters of `ns` are gone: a cluster left by a failed
 * test can only go while the operator still runs (its finalizer).
 */
export async function stopStackAfterClusters(
  env: LocalEnvironment,
  ns: string,
  stack: { stop(): Promise<void> },
): Promise<void> {
  const kubectl = (...args: string[]) => env.kubectl([...args, '-n', ns]);
  await kubectl('delete', 'redisclusters', '--all', '--wait=false').catch(() => {});
  await env
    .waitFor(async () => (await kubectl('get', 'redisclusters', '-o', 'name')).trim() === '', {
      what: 'RedisClusters gone',
      timeout: 120_000,
    })
    .catch(() => {});
  await stack.stop();
}
