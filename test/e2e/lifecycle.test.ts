// The whole RedisCluster lifecycle on the local Kubernetes, with the operator running as
// separate processes (infra/local/operator-stack.ts): the event source watches the API server,
// ingest queues keys, the reconcile worker process runs them. The test never calls the
// reconciler; it acts as a user does (kubectl) and checks what a user and a client observe.
// One cluster goes through creation, scale-out with a killed worker, scale-in, config and
// version changes, pod and node failures and deletion; a second one shows Retain on delete.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startOperatorStack, type OperatorStack } from '../../infra/local/operator-stack.ts';
import { envDir, repoRoot } from '../../infra/local/paths.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { bulkLoad, ClientLoad, type LoadReport } from '../integration/cluster/client-load.ts';
import { localEnvironment, type LocalEnvironment } from '../support/local-env.ts';
import { ClusterView, counter, followSeeds, fullShape, openSlots, stopStackAfterClusters } from './observe.ts';

const KEYS = Number(process.env.KNREDIS_E2E_KEYS ?? 100_000);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A client call that must end: its commands hanging would otherwise hold the suite. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms / 1000}s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('knredis end to end (functions as separate processes, on the local Kubernetes)', function () {
  this.timeout(900_000);
  let env: LocalEnvironment;
  let stack: OperatorStack;
  let dir: string;
  let ns: string;
  let alpha: ClusterView;
  let keeper: ClusterView;
  let password: string;
  let load: ClientLoad | undefined;
  let unfollow = () => {};
  const figures: [string, string][] = [];
  let failed = false;

  const kubectl = (...args: string[]) => env.kubectl([...args, '-n', ns]);
  const apply = (manifest: object) => env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
  const redisCluster = (name: string, spec: object) => ({
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisCluster',
    metadata: { name, namespace: ns },
    spec,
  });
  const patch = (spec: object) =>
    kubectl('patch', 'rediscluster', 'alpha', '--type=merge', '-p', JSON.stringify({ spec }));
  /** The client's counts since the last call; the load keeps running. */
  let reported: LoadReport = { ops: 0, errors: 0, mismatches: 0, samples: [] };
  const loadSince = async (): Promise<LoadReport> => {
    const now = await within(load!.stop(), 60_000, 'the client load');
    const delta = {
      ops: now.ops - reported.ops,
      errors: now.errors - reported.errors,
      mismatches: now.mismatches - reported.mismatches,
      samples: now.samples.slice(reported.samples.length),
    };
    reported = now;
    return delta;
  };
  const reconciles = () => counter(stack.urls.workerMetrics[0]!, 'controller_runtime_reconcile_total');
  /** Waits until the worker has run n more reconciles (the resync runs every 2 s). */
  const moreReconciles = async (n: number) => {
    const start = await reconciles();
    await env.waitFor(async () => (await reconciles()) >= start + n, {
      what: `${n} more reconciles`,
      timeout: 120_000,
    });
  };
  /** On a lost write: each node's own line of CLUSTER NODES, and the Redis logs of the pods, kept with the environment. */
  const keepRedisEvidence = async (): Promise<string> => {
    const lines = await Promise.all(
      (await alpha.pods()).map(async (p) => {
        const node = new Redis({ host: p.ip, port: 6379, password, lazyConnect: true, maxRetriesPerRequest: 1 });
        try {
          const nodes = (await node.cluster('NODES')) as string;
          return `${p.name}: ${nodes.split('\n').find((l) => l.includes('myself')) ?? '?'}`;
        } catch (error) {
          return `${p.name}: ${(error as Error).message}`;
        } finally {
          node.disconnect();
        }
      }),
    );
    const kept = join(envDir(env.name), 'logs', 'redis-at-lost-write');
    await cp(join(envDir(env.name), 'kubelet', 'pods'), kept, {
      recursive: true,
      filter: (src) => !/\/(rootfs|bin|volumes)(\/|$)/.test(src),
    }).catch(() => {});
    return `nodes: ${lines.join(' | ')}; pod logs kept in ${kept}`;
  };
  const configOfNodes = async (key: string) =>
    Promise.all(
      (await alpha.pods()).map(async (p) => {
        const node = new Redis({ host: p.ip, port: 6379, password, lazyConnect: true });
        try {
          return ((await node.config('GET', key)) as string[])[1];
        } finally {
          node.disconnect();
        }
      }),
    );
  /** SIGKILLs the worker once status shows slots moving and a node holds one open, then starts it again. */
  const killWorkerMidMigration = async (what: string) => {
    const moving = await alpha.until('slots migrating', (rc) => {
      const m = /migrating slots: (\d+)\/(\d+)/.exec(rc?.status?.operation?.progress ?? '');
      return !!m && Number(m[1]) > 0 && Number(m[1]) < Number(m[2]);
    });
    const ips = (await alpha.pods()).map((p) => p.ip);
    const open = await env.waitFor(async () => (await openSlots(ips, password)) || undefined, {
      what: 'a slot open on some node',
      timeout: 60_000,
      interval: 20,
    });
    await stack.stopWorker(0, 'SIGKILL');
    figures.push([
      `worker SIGKILLed during ${what} at`,
      `${moving?.status?.operation?.progress} (${open} slot(s) open on the nodes)`,
    ]);
    await stack.startWorker(0);
  };
  const seeds = (rc: RedisCluster | undefined) =>
    (rc?.status?.shards ?? []).map((s) => ({ ip: s.master?.ip ?? '', port: 6379 }));

  before(async () => {
    env = await localEnvironment();
    ns = `e2e-${process.pid}`;
    await env.kubectl(['create', 'namespace', ns]);
    dir = await mkdtemp(join(tmpdir(), 'knredis-e2e-'));
    const started = Date.now();
    // the functions run as the image runs them: the bundle, not the TypeScript sources
    execFileSync('npm', ['run', '-s', 'build'], { cwd: repoRoot, stdio: 'inherit' });
    stack = await startOperatorStack({
      runs: 'bundle',
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir,
      workers: 1,
      webhookConfigurationName: `knredis-e2e-${process.pid}`,
      // Frequent resyncs show a steady cluster is left alone; a short lock brings a killed
      // worker's job back soon.
      extraEnv: {
        RESYNC_INTERVAL_MS: '2000',
        RESYNC_JITTER_MS: '0',
        QUEUE_LOCK_DURATION_MS: '5000',
        QUEUE_STALLED_INTERVAL_MS: '1000',
      },
    });
    figures.push(['operator stack start', seconds(Date.now() - started)]);
    alpha = new ClusterView(env, ns, 'alpha');
    keeper = new ClusterView(env, ns, 'keeper');
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });
  after(async function () {
    this.timeout(240_000);
    unfollow();
    await within<unknown>(load?.stop() ?? Promise.resolve(), 60_000, 'the client load').catch((error: Error) =>
      console.error(error.message),
    );
    await load?.close();
    // RedisClusters left by a failed test go while the operator still runs (their finalizer).
    if (stack) await stopStackAfterClusters(env, ns, stack);
    if (ns) await env.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => {});
    if (failed) console.error(`operator logs kept: ${dir}/logs`);
    else if (dir) await rm(dir, { recursive: true, force: true });
    console.log(`\n  e2e figures:\n${figures.map(([k, v]) => `    ${k.padEnd(44)} ${v}`).join('\n')}\n`);
  });

  it('refuses an invalid RedisCluster with a message a user understands, and creates nothing', async () => {
    const refusal = (manifest: object) =>
      apply(manifest).then(
        () => 'accepted',
        (error: Error) => error.message,
      );
    expect(await refusal(redisCluster('tiny', { masters: 2 }))).to.contain(
      'spec.masters: Invalid value: 2: a Redis Cluster needs at least 3 masters, so that the others can elect a new master after a failure',
    );
    // Refused by the webhooks process, not by the schema.
    expect(await refusal(redisCluster('lru', { config: { 'maxmemory-policy': 'lru' } }))).to.contain(
      'admission webhook "validate.redisclusters.cache.redis.io" denied the request: spec.config[maxmemory-policy]: "lru" must be one of volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru',
    );
    expect((await kubectl('get', 'redisclusters', '-o', 'name')).trim()).to.equal('');
    expect(
      (
        await kubectl(
          'get',
          'statefulsets,pods,services,configmaps,secrets,persistentvolumeclaims',
          '-l',
          'app.kubernetes.io/managed-by=knredis',
          '-o',
          'name',
        )
      ).trim(),
    ).to.equal('');
  });

  it('forms 3 masters x 1 replica: Ready, 16384 slots covered, each replica on another node than its master', async () => {
    const queued = await counter(stack.urls.metrics, 'workqueue_adds_total');
    const started = Date.now();
    await apply(
      redisCluster('alpha', { masters: 3, replicasPerMaster: 1, version: '7.0', storage: { reclaim: 'Delete' } }),
    );
    await apply(redisCluster('keeper', { masters: 3, replicasPerMaster: 0, storage: { reclaim: 'Retain' } }));
    const rc = await alpha.until('alpha Ready with 3x1', fullShape(3, 1));
    figures.push(['create 3x1 to Ready', seconds(Date.now() - started)]);
    expect(rc?.status?.slotsCovered).to.equal(16384);
    expect(rc?.status?.readyNodes).to.equal(6);
    const nodeOf = new Map((await alpha.pods()).map((p) => [p.name, p.node]));
    for (const shard of rc?.status?.shards ?? []) {
      for (const replica of shard.replicas ?? [])
        expect(nodeOf.get(replica.pod), `${replica.pod} beside its master ${shard.master?.pod}`).to.not.equal(
          nodeOf.get(shard.master?.pod ?? ''),
        );
    }
    await keeper.until('keeper Ready with 3x0', fullShape(3, 0));
    password = await alpha.password();
    // The event source's CloudEvents reached ingest, which queued their keys.
    expect(await counter(stack.urls.metrics, 'workqueue_adds_total')).to.be.greaterThan(queued);
  });

  it('scales 3 -> 6 masters with 100,000 keys under a writing and reading client, finishing after its worker is SIGKILLed mid-migration', async () => {
    const pool = new NodePool({ auth: { password } });
    try {
      const loadStart = Date.now();
      await bulkLoad(
        await observe(
          (await alpha.pods()).map((p) => ({ name: p.name, address: { ip: p.ip, port: 6379 }, nodeName: p.node })),
          pool,
        ),
        'k',
        KEYS,
        password,
      );
      figures.push([`bulk load of ${KEYS} keys`, seconds(Date.now() - loadStart)]);
    } finally {
      await pool.close();
    }
    load = new ClientLoad(seeds(await alpha.get()), 'k', KEYS, password);
    unfollow = followSeeds(load.cluster, alpha);
    load.start(4);
    const started = Date.now();
    await kubectl('scale', 'rediscluster', 'alpha', '--replicas=6');
    await killWorkerMidMigration('scale-out');
    const rc = await alpha.until('alpha Ready with 6x1', fullShape(6, 1), 600_000);
    figures.push([`scale-out 3 -> 6 with ${KEYS} keys (incl. kill)`, seconds(Date.now() - started)]);
    expect(rc?.status?.readyNodes).to.equal(12);
    const report = await loadSince();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(report.ops).to.be.greaterThan(0);
    expect(await within(load.verify(), 120_000, 'reading every key back')).to.deep.equal([]);
    load.start(4);
  });

  it('scales 6 -> 3 masters the same way, its worker SIGKILLed mid-drain too: zero client errors, every key with its last value, the drained pods gone', async () => {
    const started = Date.now();
    await kubectl('scale', 'rediscluster', 'alpha', '--replicas=3');
    await killWorkerMidMigration('scale-in');
    await alpha.until('alpha Ready with 3x1', fullShape(3, 1), 600_000);
    figures.push(['scale-in 6 -> 3 (incl. kill)', seconds(Date.now() - started)]);
    const report = await loadSince();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(await within(load!.verify(), 120_000, 'reading every key back')).to.deep.equal([]);
    await env.waitFor(
      async () => (await alpha.pods()).length === 6 && (await alpha.owned('persistentvolumeclaims')).length === 6,
      { what: '6 pods and 6 claims left', timeout: 120_000 },
    );
    load!.start(4);
  });

  it('changes nothing while paused, then applies a live-settable config change on every node without restarting a pod', async () => {
    const before = (await alpha.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort();
    await patch({ paused: true });
    await alpha.until(
      'alpha Paused',
      (rc) => rc?.status?.phase === 'Paused' && rc.status.observedGeneration === rc.metadata.generation,
    );
    await patch({ config: { 'maxmemory-policy': 'allkeys-lru' } });
    await moreReconciles(4);
    expect(await configOfNodes('maxmemory-policy'), 'while paused').to.not.include('allkeys-lru');
    await patch({ paused: false });
    await env.waitFor(async () => (await configOfNodes('maxmemory-policy')).every((v) => v === 'allkeys-lru'), {
      what: 'maxmemory-policy allkeys-lru on every node',
      timeout: 120_000,
    });
    await alpha.until('alpha Ready after the config change', fullShape(3, 1));
    expect((await alpha.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort()).to.deep.equal(before);
  });

  it('rolls a version change 7.0 -> 7.2 through every pod with zero client errors', async () => {
    const before = new Map((await alpha.pods()).map((p) => [p.name, p.uid]));
    const started = Date.now();
    await patch({ version: '7.2' });
    await env.waitFor(
      async () => {
        const rc = await alpha.get();
        const pods = await alpha.pods();
        return (
          fullShape(3, 1)(rc) &&
          pods.length === 6 &&
          pods.every((p) => before.has(p.name) && before.get(p.name) !== p.uid)
        );
      },
      { what: 'every pod replaced and alpha Ready', timeout: 600_000, interval: 500 },
    );
    figures.push(['rolling update of 6 pods', seconds(Date.now() - started)]);
    const sts = JSON.parse(await kubectl('get', 'statefulset', 'alpha', '-o', 'json')) as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    expect(sts.spec.template.spec.containers[0]?.image).to.equal('redis:7.2');
    const report = await loadSince();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(await within(load!.verify(), 120_000, 'reading every key back')).to.deep.equal([]);
    load!.start(4);
  });

  it('keeps serving and heals back to full shape when a master pod is deleted', async () => {
    const rc = await alpha.get();
    const master = rc?.status?.shards?.[1]?.master?.pod ?? '';
    const uid = (await alpha.pods()).find((p) => p.name === master)?.uid;
    const started = Date.now();
    await kubectl('delete', 'pod', master, '--wait=false');
    await env.waitFor(
      async () => {
        const pod = (await alpha.pods()).find((p) => p.name === master);
        return !!pod && pod.uid !== uid && fullShape(3, 1)(await alpha.get());
      },
      { what: `${master} back and alpha in full shape`, timeout: 300_000, interval: 500 },
    );
    figures.push(['heal after a master pod deletion', seconds(Date.now() - started)]);
    const report = await loadSince();
    expect(report.ops, 'the client kept working').to.be.greaterThan(0);
    figures.push(['client errors during that failover', String(report.errors)]);
    expect(await within(load!.verify(), 120_000, 'reading every key back')).to.deep.equal([]);
    load!.start(4);
  });

  it('keeps serving and heals back to full shape, off the failed node, when a whole node fails', async () => {
    const rc = await alpha.get();
    const pods = await alpha.pods();
    const victimMaster = rc?.status?.shards?.[0]?.master?.pod ?? '';
    const victim = pods.find((p) => p.name === victimMaster)?.node ?? '';
    const started = Date.now();
    const marks = [`node ${victim} failed ${new Date(started).toISOString()}`];
    await env.kubelet.failNode(victim);
    try {
      await env.waitFor(
        async () => {
          const now = await alpha.pods();
          return now.length === 6 && now.every((p) => p.node !== victim) && fullShape(3, 1)(await alpha.get());
        },
        { what: `alpha in full shape without ${victim}`, timeout: 400_000, interval: 500 },
      );
      figures.push(['heal after a node failure', seconds(Date.now() - started)]);
      marks.push(`full shape ${new Date().toISOString()}`);
      const healed = await alpha.get();
      const nodeOf = new Map((await alpha.pods()).map((p) => [p.name, p.node]));
      const beside = (healed?.status?.shards ?? []).flatMap((s) =>
        (s.replicas ?? []).filter((r) => nodeOf.get(r.pod) === nodeOf.get(s.master?.pod ?? '')),
      );
      expect(
        beside.map((r) => r.pod),
        'replicas beside their master',
      ).to.deep.equal([]);
      // The master came back elsewhere with its nodes.conf under the restart guard, and the
      // operator lifted it once it was a replica: no node is left refusing writes.
      const lifted = await env.waitFor(
        async () => {
          const list = JSON.parse(await kubectl('get', 'events', '-o', 'json')) as {
            items: { reason: string; message: string }[];
          };
          return list.items.find((e) => e.reason === 'WriteGuardLifted' && e.message.startsWith(`${victimMaster} `));
        },
        { what: `the restart guard of ${victimMaster} lifted`, timeout: 120_000, interval: 500 },
      );
      expect(lifted.message).to.contain('it is a replica');
      expect(await configOfNodes('min-replicas-to-write')).to.deep.equal(['0', '0', '0', '0', '0', '0']);
    } finally {
      await env.kubelet.restoreNode(victim);
      marks.push(`node restored ${new Date().toISOString()}`);
    }
    const report = await loadSince();
    marks.push(`load stopped ${new Date().toISOString()}`);
    expect(report.ops, 'the client kept working').to.be.greaterThan(0);
    figures.push(['client errors during the node failure', String(report.errors)]);
    const wrong = await within(load!.verify(), 120_000, 'reading every key back');
    if (wrong.length > 0) marks.push(await keepRedisEvidence());
    expect(wrong, marks.join('; ')).to.deep.equal([]);
  });

  it('writes nothing while Ready clusters are reconciled again and again', async () => {
    await within<unknown>(load?.stop() ?? Promise.resolve(), 60_000, 'the client load');
    await alpha.until('alpha Ready', fullShape(3, 1));
    // keeper (3x0) lost a master with the failed node and heals only after the node is back.
    await keeper.until('keeper Ready with 3x0', fullShape(3, 0));
    // Settle: the runs that follow the last status write.
    await moreReconciles(2);
    const before = await alpha.resourceVersions();
    const start = await reconciles();
    await moreReconciles(6);
    figures.push(['reconciles of Ready clusters checked for writes', String((await reconciles()) - start)]);
    const after = await alpha.resourceVersions();
    const changed = Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);
    expect(changed, 'objects written while every cluster was Ready').to.deep.equal([]);
  });

  it('removes everything a deleted RedisCluster owned: PVCs deleted under reclaim Delete, kept under Retain', async () => {
    await kubectl('delete', 'rediscluster', 'alpha', 'keeper', '--wait=false');
    await alpha.until('alpha gone', (rc) => rc === undefined, 120_000);
    await keeper.until('keeper gone', (rc) => rc === undefined, 120_000);
    const children = 'statefulsets,pods,services,configmaps,secrets,poddisruptionbudgets';
    await env.waitFor(
      async () => (await alpha.owned(children)).length === 0 && (await keeper.owned(children)).length === 0,
      { what: 'children garbage-collected', timeout: 120_000 },
    );
    expect(await alpha.owned('persistentvolumeclaims')).to.deep.equal([]);
    expect(await keeper.owned('persistentvolumeclaims')).to.have.length(3);
  });
});
