// knredis as users install it: the image built here, `kubectl apply --server-side -k
// infra/overlays/kubernetes`, each function a Deployment under its own ServiceAccount, in an
// environment whose pods are OCI containers with cluster DNS and routed ClusterIPs
// (infra/local/kubelet/README.md), with a real cert-manager (infra/local/cert-manager.ts). The
// webhooks serve the certificate cert-manager issued, and the API server reaches them through
// their Service; the event source watches the API server from its pod and posts to ingest's
// Service with its projected token; ingest queues into the queue Redis by its Service name; the
// reconcile worker forms the cluster from its pod.
import { expect } from 'chai';
import { Cluster } from 'ioredis';
import { startEnvironment, stopEnvironment, type Environment } from '../../infra/local/environment.ts';
import { podman } from '../../infra/local/kubelet/podman-runtime.ts';
import { requireCommand } from '../support/prerequisites.ts';
import { toLocal, type LocalEnvironment } from '../support/local-env.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { bulkLoad, ClientLoad } from '../integration/cluster/client-load.ts';
import { ClusterView, fullShape } from './observe.ts';

const name = `in-cluster-${process.pid}`;
const system = 'knredis-system';
const namespace = 'shop';

describe('knredis installed from its own overlay, in containers (in-cluster)', function () {
  this.timeout(600_000);
  let state: Environment;
  let env: LocalEnvironment;
  let shop: ClusterView;

  const kubectl = (args: string[], input?: string) => env.kubectl(args, input ? { input } : {});
  /** A client writing and reading `keys` keys, loaded first (ClientLoad expects their first value). */
  const loadOn = async (prefix: string, keys: number): Promise<ClientLoad> => {
    const password = await shop.password();
    const pool = new NodePool({ auth: { password } });
    try {
      const pods = await shop.pods();
      const nodes = pods.map((p) => ({ name: p.name, address: { ip: p.ip, port: 6379 }, nodeName: p.node }));
      await bulkLoad(await observe(nodes, pool), prefix, keys, password);
    } finally {
      await pool.close();
    }
    const seeds = (await shop.get())?.status?.shards?.map((s) => ({ ip: s.master?.ip ?? '', port: 6379 })) ?? [];
    return new ClientLoad(seeds, prefix, keys, password);
  };

  before(async function () {
    requireCommand('podman', 'Debian package podman; npm test installs it');
    requireCommand('runc', 'Debian package runc; npm test installs it');
    for (const image of ['localhost/knredis:0.1.0', 'docker.io/library/redis:7.0'])
      await podman('image', 'exists', image).catch(() => {
        throw new Error(`prerequisite missing: the image ${image} (npm run image; infra/image/build-redis.sh)`);
      });
    state = await startEnvironment({ name, nodes: 3, owner: process.pid, runtime: 'container', certManager: true });
    env = toLocal(state);
    shop = new ClusterView(env, namespace, 'shop');
  });

  after(async function () {
    if (state) await stopEnvironment(name, { purge: true });
  });

  it('runs each function from the image under its own ServiceAccount, once the Secrets users create exist', async () => {
    // As the README says: the namespace and the two Secrets first, then the overlay.
    await kubectl(['create', 'namespace', system]);
    // What the README asks users to create before deploying.
    await kubectl([
      '-n',
      system,
      'create',
      'secret',
      'generic',
      'knredis-queue-redis',
      '--from-literal=password=q-pa55',
    ]);
    await kubectl(['-n', system, 'create', 'secret', 'generic', 'knredis-dashboard', '--from-literal=token=d-t0ken']);
    await kubectl(['apply', '--server-side', '-k', 'infra/overlays/kubernetes']);
    for (const deployment of [
      'knredis-webhooks',
      'knredis-event-source',
      'knredis-ingest',
      'knredis-reconcile',
      'knredis-dashboard',
    ])
      await kubectl(['-n', system, 'rollout', 'status', `deployment/${deployment}`, '--timeout=180s']);
    await kubectl(['-n', system, 'rollout', 'status', 'statefulset/knredis-queue-redis', '--timeout=180s']);
    const pods = JSON.parse(await kubectl(['-n', system, 'get', 'pods', '-o', 'json'])) as {
      items: { spec: { serviceAccountName: string; containers: { image: string }[] }; status: { podIP: string } }[];
    };
    const accounts = new Set(pods.items.map((p) => p.spec.serviceAccountName));
    for (const account of [
      'knredis-webhooks',
      'knredis-event-source',
      'knredis-ingest',
      'knredis-reconcile',
      'knredis-dashboard',
    ])
      expect([...accounts]).to.include(account);
    for (const p of pods.items) expect(p.status.podIP).to.match(/^10\./);
  });

  it('refuses a bad RedisCluster in its webhook, reached through its Service with the CA cert-manager injected', async () => {
    await kubectl(['create', 'namespace', namespace]);
    // The injector writes the CA once the certificate is issued; until then the API server
    // cannot verify the webhook (fail closed): wait for the bundle, as a user waits for Ready.
    await env.waitFor(
      async () =>
        (
          await kubectl([
            'get',
            'validatingwebhookconfiguration',
            'knredis-redisclusters',
            '-o',
            'jsonpath={.webhooks[0].clientConfig.caBundle}',
          ])
        ).length > 0,
      { what: 'the caBundle cert-manager injects', timeout: 120_000 },
    );
    const refusal = await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'lru', namespace },
        spec: { masters: 3, config: { 'maxmemory-policy': 'lru' } },
      }),
    ).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
    expect(refusal).to.contain(
      'admission webhook "validate.redisclusters.cache.redis.io" denied the request: spec.config[maxmemory-policy]: "lru" must be one of',
    );
  });

  it('forms a 3x1 cluster from a RedisCluster, by events alone, and a client writes and reads every key', async () => {
    await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'shop', namespace },
        spec: { masters: 3, replicasPerMaster: 1 },
      }),
    );
    // The worker's resync is 5 minutes (infra/base/config.yaml): within this wait only the events
    // the event source posted to ingest can have started the work.
    const rc = await shop.until('shop Ready with 3x1', fullShape(3, 1), 240_000);
    expect(rc?.status?.slotsCovered).to.equal(16384);
    const pods = await shop.pods();
    const password = await shop.password();
    const client = new Cluster([{ host: pods[0]!.ip, port: 6379 }], { redisOptions: { password } });
    try {
      const keys = Array.from({ length: 1000 }, (_, i) => `k:${i}`);
      for (const key of keys) await client.set(key, `v-${key}`);
      const values = await Promise.all(keys.map((key) => client.get(key)));
      expect(values.filter((v, i) => v !== `v-${keys[i]}`)).to.deep.equal([]);
    } finally {
      client.disconnect();
    }
  });

  it('scales 3 -> 4 masters by live slot migration from its pod, under a client: no client error, every key kept', async () => {
    const load = await loadOn('load', 20_000);
    try {
      load.start(4);
      await env.waitFor(() => load.counts().ops > 1000, { what: 'the client load under way' });
      await kubectl(['-n', namespace, 'scale', 'rediscluster', 'shop', '--replicas=4']);
      await shop.until('shop Ready with 4x1', fullShape(4, 1), 300_000);
      const report = await load.stop();
      expect(report.errors, report.samples.join('\n')).to.equal(0);
      expect(report.ops).to.be.greaterThan(1000);
      expect(await load.verify()).to.deep.equal([]);
    } finally {
      await load.stop();
      await load.close();
    }
  });

  it('heals after a master pod is deleted: back to full shape, and no acknowledged write lost', async () => {
    const victim = (await shop.get())?.status?.shards?.[0]?.master?.pod ?? '';
    const load = await loadOn('heal', 5_000);
    try {
      load.start(4);
      await env.waitFor(() => load.counts().ops > 500, { what: 'the client load under way' });
      const uid = (await shop.pods()).find((p) => p.name === victim)?.uid;
      await kubectl(['-n', namespace, 'delete', 'pod', victim, '--wait=false']);
      // As the process-mode e2e waits: the pod back under a new uid, and the cluster in full shape.
      await env.waitFor(
        async () => {
          const pod = (await shop.pods()).find((p) => p.name === victim);
          return !!pod && pod.uid !== uid && fullShape(4, 1)(await shop.get());
        },
        { what: `${victim} back and shop in full shape`, timeout: 300_000, interval: 500 },
      );
      const report = await load.stop();
      expect(report.ops).to.be.greaterThan(500);
      expect(await load.verify()).to.deep.equal([]);
    } finally {
      await load.stop();
      await load.close();
    }
  });

  it('removes the cluster it formed when the RedisCluster is deleted', async () => {
    await kubectl(['-n', namespace, 'delete', 'rediscluster', 'shop', '--wait=false']);
    await shop.until('shop gone', (rc) => rc === undefined, 180_000);
    await env.waitFor(async () => (await shop.owned('statefulsets,pods,services,configmaps')).length === 0, {
      what: "shop's children gone",
      timeout: 180_000,
    });
  });
});
