// The reconcile worker's watch-fed cache on the real API server: a child changed by someone
// else is in the cache when its owner's key is enqueued (so the pass that follows sees it),
// another workload's look-alike pods stay out, and an unsynced cache leaves observe to the
// API server.
import { expect } from 'chai';
import { KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { observeChildren } from '../../../functions/reconcile/observe.ts';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { childLabels } from '../../../shared/core/resources/meta.ts';
import { startChildCache, type ChildCache } from '../../../shared/io/kube/child-cache.ts';
import { KubeClient } from '../../../shared/io/kube/kube-client.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { waitFor } from '../../support/wait-for.ts';
import { installApi, type InstalledApi } from './api-fixture.ts';

const CLUSTER = 'cached';
const generic = { 'app.kubernetes.io/name': 'redis-cluster', 'app.kubernetes.io/instance': CLUSTER };

describe('child cache of the reconcile worker', function () {
  this.timeout(120_000);
  let api: InstalledApi;
  let ns: string;
  let cache: ChildCache | undefined;
  const enqueued: string[] = [];
  const log = createLogger({ level: 'warn', name: 'child-cache-test' });

  before(async function () {
    this.timeout(300_000);
    api = await installApi(`knredis-child-cache-test-${process.pid}`);
    ns = await api.namespace(`cache-${process.pid}`);
    cache = startChildCache({
      kubeConfig: api.env.kubeConfig(),
      namespace: ns,
      onChange: (k) => enqueued.push(k),
      log,
    });
    await waitFor(() => cache!.synced || undefined, { what: 'the cache synced' });
  });

  after(async () => {
    await cache?.stop();
    await api?.stop();
  });

  const kubectl = (args: string[], input?: string) =>
    api.env.kubectl(['-n', ns, ...args], input === undefined ? {} : { input });
  const cluster = (): RedisCluster =>
    ({ metadata: { name: CLUSTER, namespace: ns }, spec: { masters: 3 } }) as unknown as RedisCluster;
  const configMap = (value: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${CLUSTER}-config`, labels: childLabels(CLUSTER, 'config') },
    data: { 'redis.conf': value },
  });

  it("holds a child's change by someone else before it enqueues the owner's key", async () => {
    await kubectl(['apply', '-f', '-'], JSON.stringify(configMap('maxmemory 1mb')));
    await waitFor(() => enqueued.includes(`${ns}/${CLUSTER}`) || undefined, { what: 'the key enqueued on add' });
    enqueued.length = 0;
    // What the pass after each enqueue sees: recorded at the moment of the enqueue.
    const seen: (string | undefined)[] = [];
    const kube = new KubeClient(api.env.kubeConfig(), undefined, cache);
    const watching = startChildCache({
      kubeConfig: api.env.kubeConfig(),
      namespace: ns,
      onChange: () =>
        seen.push(watching.child<V1ConfigMap>('ConfigMap', ns, `${CLUSTER}-config`)?.data?.['redis.conf']),
      log,
    });
    try {
      await waitFor(() => watching.synced || undefined, { what: 'a second cache synced' });
      await kubectl([
        'patch',
        'configmap',
        `${CLUSTER}-config`,
        '--type',
        'merge',
        '-p',
        '{"data":{"redis.conf":"maxmemory 2mb"}}',
      ]);
      await waitFor(() => seen.length > 0 || undefined, { what: 'an enqueue after the patch' });
      expect(seen).to.deep.equal(['maxmemory 2mb']);
      await waitFor(() => enqueued.includes(`${ns}/${CLUSTER}`) || undefined, { what: 'the key enqueued on update' });
      const observed = await observeChildren(kube, cluster(), Date.now());
      expect(observed.children.configMap?.data?.['redis.conf']).to.equal('maxmemory 2mb');
    } finally {
      await watching.stop();
    }
  });

  it("keeps another workload's look-alike pods out of the cached observation", async () => {
    const pod = (name: string, labels: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels },
      spec: { nodeName: 'nowhere', containers: [{ name: 'c', image: 'redis' }] },
    });
    await kubectl(['create', '-f', '-'], JSON.stringify(pod(`${CLUSTER}-0`, childLabels(CLUSTER, 'redis'))));
    await kubectl(['create', '-f', '-'], JSON.stringify(pod(`${CLUSTER}-1`, generic)));
    const kube = new KubeClient(api.env.kubeConfig(), undefined, cache);
    await waitFor(() => cache!.owned('Pod', ns, CLUSTER).length > 0 || undefined, { what: 'the pod cached' });
    const observed = await observeChildren(kube, cluster(), Date.now());
    expect(observed.pods.map((p) => p.name)).to.deep.equal([`${CLUSTER}-0`]);
    expect(observed.pods[0]!.nodeLostSince, 'a node that does not exist is lost').to.be.a('number');
  });

  it('leaves observe to the API server until it has synced', async () => {
    const nowhere = new KubeConfig();
    nowhere.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:9', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const unsynced = startChildCache({
      kubeConfig: nowhere,
      namespace: ns,
      onChange: () => {},
      log: createLogger({ level: 'fatal', name: 'unsynced' }),
    });
    try {
      expect(unsynced.synced).to.equal(false);
      const observed = await observeChildren(
        new KubeClient(api.env.kubeConfig(), undefined, unsynced),
        cluster(),
        Date.now(),
      );
      expect(observed.children.configMap?.data?.['redis.conf']).to.equal('maxmemory 2mb');
      expect(observed.pods.map((p) => p.name)).to.deep.equal([`${CLUSTER}-0`]);
    } finally {
      await unsynced.stop();
    }
  });
});
