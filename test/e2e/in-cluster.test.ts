// knredis as users install it: the image built here, `kubectl apply --server-side -k
// infra/overlays/kubernetes`, each function a Deployment under its own ServiceAccount, in an
// environment whose pods are OCI containers with cluster DNS and routed ClusterIPs
// (infra/local/kubelet/README.md), with a real cert-manager (infra/local/cert-manager.ts). The
// webhooks serve the certificate cert-manager issued, and the API server reaches them through
// their Service; the event source watches the API server from its pod and posts to ingest's
// Service with its projected token; ingest queues into the queue Redis by its Service name; the
// reconcile worker forms the cluster from its pod, then scales it out and in under a client,
// changes its config, rolls its version, heals it after a pod and after a whole node fails (the
// operator's own pods there moved too), and deletes it. A real Prometheus finds what to scrape as the
// Prometheus Operator would have it from infra/monitoring's ServiceMonitors (Kubernetes endpoints
// discovery against the API server): the functions' /metrics and each Redis pod's exporter.
import { expect } from 'chai';
import { Cluster, Redis } from 'ioredis';
import { startEnvironment, stopEnvironment, type Environment } from '../../infra/local/environment.ts';
import { podman } from '../../infra/local/kubelet/podman-runtime.ts';
import type { Kubectl } from '../../infra/local/kubectl.ts';
import {
  DASHBOARD_SECRET,
  installOperator,
  OPERATOR_DEPLOYMENTS,
  OPERATOR_NAMESPACE,
  operatorUrls,
} from '../../infra/local/install-operator.ts';
import { requireCommand } from '../support/prerequisites.ts';
import { toLocal, type LocalEnvironment } from '../support/local-env.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { bulkLoad, ClientLoad } from '../integration/cluster/client-load.ts';
import {
  monitoringObjects,
  serviceMonitorScrapeConfigs,
  startPrometheus,
  type RunningPrometheus,
  type Target,
} from '../support/prometheus.ts';
import { ClusterView, followSeeds, fullShape } from './observe.ts';

const name = `in-cluster-${process.pid}`;
const system = OPERATOR_NAMESPACE;
const namespace = 'shop';

describe('knredis installed from its own overlay, in containers (in-cluster)', function () {
  this.timeout(600_000);
  let state: Environment;
  let env: LocalEnvironment;
  let shop: ClusterView;
  let prometheus: RunningPrometheus | undefined;

  // Long enough for `rollout status --timeout=300s` (installOperator, a node's failure) to say why.
  const kubectl: Kubectl = (args, options) => env.kubectl(args, { timeoutMs: 330_000, ...options });
  const patch = (spec: Record<string, unknown>) =>
    kubectl(['-n', namespace, 'patch', 'rediscluster', 'shop', '--type=merge', '-p', JSON.stringify({ spec })]);
  /** The value of a setting on every pod of shop, by CONFIG GET. */
  const configOfNodes = async (setting: string): Promise<string[]> => {
    const password = await shop.password();
    return Promise.all(
      (await shop.pods()).map(async (p) => {
        const node = new Redis({ host: p.ip, port: 6379, password, lazyConnect: true, maxRetriesPerRequest: 1 });
        try {
          const reply = (await node.call('CONFIG', 'GET', setting)) as string[];
          return reply[1] ?? '';
        } finally {
          node.disconnect();
        }
      }),
    );
  };
  /** What a failed wait shows: every pod, shop's status and its namespace's latest Events. */
  const diagnosis = async (): Promise<string> => {
    const show = (args: string[]) => kubectl(args).catch((error: Error) => error.message);
    return [
      await show(['get', 'pods', '-A', '-o', 'wide']),
      await show(['get', 'nodes']),
      await show(['-n', namespace, 'get', 'rediscluster', 'shop', '-o', 'jsonpath={.status}']),
      await show(['-n', namespace, 'get', 'events', '--sort-by=.lastTimestamp']),
    ].join('\n');
  };
  /** The exporters of shop Prometheus scrapes (job: shop's headless Service). */
  const exporterTargets = async (): Promise<Target[]> =>
    (await prometheus!.targets()).filter((t) => t.labels.job === 'shop-nodes');
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
    requireCommand('prometheus', "Debian package prometheus; npm test's set-up installs it");
    for (const image of [
      'localhost/knredis:0.1.0',
      'docker.io/library/redis:7.0',
      'docker.io/library/redis:7.2',
      'docker.io/oliver006/redis_exporter:v1.62.0',
    ])
      await podman('image', 'exists', image).catch(() => {
        throw new Error(
          `prerequisite missing: the image ${image} (npm run image; infra/image/build-redis.sh; infra/image/build-exporter.sh)`,
        );
      });
    state = await startEnvironment({ name, nodes: 3, owner: process.pid, runtime: 'container', certManager: true });
    env = toLocal(state);
    shop = new ClusterView(env, namespace, 'shop');
  });

  after(async function () {
    await prometheus?.stop();
    if (state) await stopEnvironment(name, { purge: true });
  });

  it('runs each function from the image under its own ServiceAccount, once the Secrets users create exist', async () => {
    // As the README says: the namespace and the two Secrets first, then the overlay, each rollout awaited.
    await installOperator({ kubectl });
    const pods = JSON.parse(await kubectl(['-n', system, 'get', 'pods', '-o', 'json'])) as {
      items: { spec: { serviceAccountName: string; containers: { image: string }[] }; status: { podIP: string } }[];
    };
    const accounts = new Set(pods.items.map((p) => p.spec.serviceAccountName));
    for (const account of OPERATOR_DEPLOYMENTS) expect([...accounts]).to.include(account);
    for (const p of pods.items) expect(p.status.podIP).to.match(/^10\./);
    // The dashboard answers at its Service's ClusterIP, behind the token of its Secret.
    const { dashboard } = await operatorUrls(kubectl);
    const token = Buffer.from(
      await kubectl(['-n', system, 'get', 'secret', DASHBOARD_SECRET, '-o', 'jsonpath={.data.token}']),
      'base64',
    ).toString();
    expect((await fetch(dashboard)).status).to.equal(401);
    expect((await fetch(dashboard, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(200);
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
    const refusal = await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'lru', namespace },
        spec: { masters: 3, config: { 'maxmemory-policy': 'lru' } },
      }),
    }).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
    expect(refusal).to.contain(
      'admission webhook "validate.redisclusters.cache.redis.io" denied the request: spec.config[maxmemory-policy]: "lru" must be one of',
    );
  });

  it('forms a 3x1 cluster from a RedisCluster, by events alone, and a client writes and reads every key', async () => {
    await kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'shop', namespace },
        spec: { masters: 3, replicasPerMaster: 1, version: '7.0', exporter: { enabled: true } },
      }),
    });
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

  it("is scraped by a real Prometheus as infra/monitoring's ServiceMonitors say: every function, the reconcile worker, each pod's exporter", async () => {
    const { monitor } = await monitoringObjects();
    const functions = ['knredis-ingest', 'knredis-reconcile-metrics', 'knredis-dashboard'];
    prometheus = await startPrometheus(
      [
        ...serviceMonitorScrapeConfigs(monitor('knredis'), env.kubeconfigPath),
        ...serviceMonitorScrapeConfigs(monitor('redis-clusters'), env.kubeconfigPath),
      ],
      (targets) =>
        functions.every((job) => targets.some((t) => t.labels.job === job && t.health === 'up')) &&
        targets.filter((t) => t.labels.job === 'shop-nodes' && t.health === 'up').length === 6,
    );
    // Every target it found answers, the functions' as much as the exporters'.
    await env.waitFor(async () => (await prometheus!.targets()).every((t) => t.health === 'up') || undefined, {
      what: 'every discovered target up',
      timeout: 60_000,
    });
    const pods = (await shop.pods()).map((p) => p.name).sort();
    // The exporters' series carry the labels the Redis alerts group by.
    const query = `redis_up{namespace="${namespace}",redis_cluster="shop"}`;
    await env.waitFor(async () => Object.keys(await prometheus!.values(query, 'pod')).length === 6 || undefined, {
      what: `${query} for every pod`,
      timeout: 60_000,
    });
    const up = await prometheus!.values(query, 'pod');
    expect(Object.keys(up).sort()).to.deep.equal(pods);
    expect(Object.values(up)).to.deep.equal([1, 1, 1, 1, 1, 1]);
    // The reconcile worker's own series are there for KnredisQueueBacklog and KnredisReconcileErrors.
    const reconciles = await prometheus!.values('controller_runtime_reconcile_total', 'job');
    expect(reconciles).to.have.property('knredis-reconcile-metrics');
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

  it('scales 4 -> 3 masters, draining the removed one under a client: no client error, every key kept, Prometheus following', async () => {
    const load = await loadOn('drain', 20_000);
    const unfollow = followSeeds(load.cluster, shop);
    try {
      load.start(4);
      await env.waitFor(() => load.counts().ops > 1000, { what: 'the client load under way' });
      await kubectl(['-n', namespace, 'scale', 'rediscluster', 'shop', '--replicas=3']);
      await shop.until('shop Ready with 3x1', fullShape(3, 1), 300_000);
      await env.waitFor(async () => (await shop.pods()).length === 6, {
        what: 'the drained pods gone',
        timeout: 120_000,
      });
      const report = await load.stop();
      expect(report.errors, report.samples.join('\n')).to.equal(0);
      expect(report.ops).to.be.greaterThan(1000);
      expect(await load.verify()).to.deep.equal([]);
      // Discovery drops the drained pods' exporters, as it found the added ones.
      await env.waitFor(
        async () => {
          const targets = await exporterTargets();
          return targets.length === 6 && targets.every((t) => t.health === 'up');
        },
        { what: "Prometheus scraping shop's 6 exporters", timeout: 120_000 },
      );
    } finally {
      unfollow();
      await load.stop();
      await load.close();
    }
  });

  it('applies a live-settable config change on every node, restarting no pod', async () => {
    const before = (await shop.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort();
    await patch({ config: { 'maxmemory-policy': 'allkeys-lru' } });
    await env.waitFor(async () => (await configOfNodes('maxmemory-policy')).every((v) => v === 'allkeys-lru'), {
      what: 'maxmemory-policy allkeys-lru on every node',
      timeout: 120_000,
    });
    await shop.until('shop Ready after the config change', fullShape(3, 1), 120_000);
    expect((await shop.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort()).to.deep.equal(before);
  });

  it('rolls a version change 7.0 -> 7.2 through every pod, masters after a planned failover, under a client: no client error', async () => {
    const before = new Map((await shop.pods()).map((p) => [p.name, p.uid]));
    const load = await loadOn('roll', 5_000);
    // Every pod comes back at a new address: the client's seeds follow the live pods.
    const unfollow = followSeeds(load.cluster, shop);
    try {
      load.start(4);
      await env.waitFor(() => load.counts().ops > 500, { what: 'the client load under way' });
      await patch({ version: '7.2' });
      await env.waitFor(
        async () => {
          const pods = await shop.pods();
          return (
            fullShape(3, 1)(await shop.get()) &&
            pods.length === 6 &&
            pods.every((p) => before.has(p.name) && before.get(p.name) !== p.uid)
          );
        },
        { what: 'every pod replaced and shop Ready', timeout: 600_000, interval: 500 },
      );
      const images = JSON.parse(
        await kubectl(['-n', namespace, 'get', 'pods', '-l', 'app.kubernetes.io/instance=shop', '-o', 'json']),
      ) as { items: { status: { containerStatuses: { name: string; image: string }[] } }[] };
      for (const pod of images.items)
        expect(pod.status.containerStatuses.find((c) => c.name === 'redis')?.image).to.match(/redis:7\.2$/);
      const report = await load.stop();
      expect(report.errors, report.samples.join('\n')).to.equal(0);
      expect(report.ops).to.be.greaterThan(500);
      expect(await load.verify()).to.deep.equal([]);
    } finally {
      unfollow();
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
          return !!pod && pod.uid !== uid && fullShape(3, 1)(await shop.get());
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

  it("heals off a failed node, the operator's own pods there moved too; RedisClusterDown pending for its pods (up == 0)", async () => {
    // A node with a master of shop, and not the queue's Redis: that StatefulSet's pod would wait
    // for the node (its replacement needs the old pod gone), as in any cluster.
    const system = JSON.parse(await kubectl(['-n', OPERATOR_NAMESPACE, 'get', 'pods', '-o', 'json'])) as {
      items: { metadata: { name: string }; spec: { nodeName: string } }[];
    };
    const queueNode = system.items.find((p) => p.metadata.name === 'knredis-queue-redis-0')?.spec.nodeName;
    const pods = await shop.pods();
    const masters = new Set((await shop.get())?.status?.shards?.map((s) => s.master?.pod ?? '') ?? []);
    const victim = pods.find((p) => masters.has(p.name) && p.node !== queueNode)?.node ?? '';
    expect(victim, 'a node with a master and without the queue').to.not.equal('');
    const there = pods.filter((p) => p.node === victim).map((p) => p.name);
    const load = await loadOn('node', 5_000);
    const unfollow = followSeeds(load.cluster, shop);
    try {
      load.start(4);
      await env.waitFor(() => load.counts().ops > 500, { what: 'the client load under way' });
      await env.kubelet.failNode(victim);
      // The exporters there stop answering while their pods are still endpoints (not ready).
      const down = await env.waitFor(
        async () => {
          const pending = (await prometheus!.alerts('RedisClusterDown')).filter((a) =>
            there.includes(a.labels.pod ?? ''),
          );
          return pending.length > 0 ? pending : undefined;
        },
        { what: `RedisClusterDown pending for a pod on ${victim}`, timeout: 120_000, interval: 250 },
      );
      expect(down[0]!.labels).to.include({ namespace, redis_cluster: 'shop', severity: 'critical' });
      await env
        .waitFor(
          async () => {
            const now = await shop.pods();
            return now.length === 6 && now.every((p) => p.node !== victim) && fullShape(3, 1)(await shop.get());
          },
          { what: `shop in full shape without ${victim}`, timeout: 400_000, interval: 500 },
        )
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\n${await diagnosis()}`);
        });
      for (const deployment of OPERATOR_DEPLOYMENTS)
        await kubectl(['-n', OPERATOR_NAMESPACE, 'rollout', 'status', `deployment/${deployment}`, '--timeout=300s']);
      const report = await load.stop();
      expect(report.ops).to.be.greaterThan(500);
      expect(await load.verify()).to.deep.equal([]);
    } finally {
      await env.kubelet.restoreNode(victim);
      unfollow();
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
    await env.waitFor(async () => (await exporterTargets()).length === 0, {
      what: "Prometheus dropping shop's exporters",
      timeout: 120_000,
    });
  });
});
