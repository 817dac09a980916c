// `npm run bench -- lifecycle [--env NAME] [--keys N]`: the RedisCluster lifecycle on the local
// Kubernetes with the operator as separate processes (infra/local/operator-stack.ts: event
// source -> ingest -> queue -> reconcile worker), timed from outside as a user sees it:
//   apply-to-Ready   kubectl apply of a 3x1 and of a 6x1 RedisCluster until Ready in full shape
//   heal             a master's pod deleted with grace 0, and a master's redis-server SIGKILLed
//                    by the kubelet, until that pod is back and the cluster in full shape again
//                    (in the status and in what every Redis node says)
//   scale-out        3 -> 6 masters with N keys (default 100,000) while a client writes and reads
//   requests         API requests of one reconcile of the Ready, unchanged 3x1 by the running worker,
//                    from the API server's audit log (steady-requests.ts)
// --env NAME (or KNREDIS_BENCH_ENV) uses a running environment started with --audit; otherwise
// one is started (with the audit log) and stopped. --only steady stops after the requests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditPaths } from '../../infra/local/control-plane.ts';
import { startEnvironment, stopEnvironment } from '../../infra/local/environment.ts';
import { startOperatorStack, type OperatorStack } from '../../infra/local/operator-stack.ts';
import { myselfOf } from '../../shared/core/cluster/topology.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { ClusterView, fullShape } from '../e2e/observe.ts';
import { bulkLoad, ClientLoad, type LoadReport } from '../integration/cluster/client-load.ts';
import { localEnvironment, type LocalEnvironment } from '../support/local-env.ts';
import { AuditLog } from './audit-log.ts';
import { steadyRequests } from './steady-requests.ts';
import type { BenchResult } from './table.ts';

const STEADY_PASSES = 5;
const seconds = (ms: number) => Math.round(ms / 100) / 10;
const option = (args: string[], name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What every Redis node says: all reachable, no node failing, `masters` shards each with `replicas` linked replicas. */
async function redisInShape(view: ClusterView, password: string, masters: number, replicas: number): Promise<boolean> {
  const pods = (await view.pods()).filter((p) => p.ip && !p.terminating);
  const pool = new NodePool({ auth: { password } });
  try {
    const topology = await observe(
      pods.map((p) => ({ name: p.name, address: { ip: p.ip, port: 6379 }, nodeName: p.node })),
      pool,
    );
    const shardMasters = topology.views.filter((v) => myselfOf(v).role === 'master' && myselfOf(v).slots.length > 0);
    return (
      topology.unreachable.length === 0 &&
      topology.views.length === masters * (1 + replicas) &&
      shardMasters.length === masters &&
      topology.views.every(
        (v) => v.info.state === 'ok' && v.entries.every((e) => e.failing === 'none' && !e.handshake),
      ) &&
      shardMasters.every(
        (m) => topology.views.filter((v) => myselfOf(v).masterId === m.id && v.replication.linkUp).length === replicas,
      )
    );
  } finally {
    await pool.close();
  }
}

export default async function lifecycle(args: string[]): Promise<BenchResult> {
  const keys = Number(option(args, '--keys') ?? 100_000);
  const steadyOnly = option(args, '--only') === 'steady';
  const reuse = option(args, '--env') ?? process.env.KNREDIS_BENCH_ENV;
  const started = reuse ? undefined : `bench-lifecycle-${process.pid}`;
  if (started)
    await startEnvironment({
      name: started,
      owner: process.pid,
      audit: true,
      progress: (m) => console.error(`local: ${m}`),
    });
  // The test support opens a named environment and leaves it running: this bench stops its own.
  process.env.KNREDIS_TEST_ENV = reuse ?? started;
  const dir = await mkdtemp(join(tmpdir(), 'knredis-bench-lifecycle-'));
  const ns = `bench-lifecycle-${process.pid}`;
  let env: LocalEnvironment | undefined;
  let stack: OperatorStack | undefined;
  let load: ClientLoad | undefined;
  try {
    env = await localEnvironment();
    await env.kubectl(['create', 'namespace', ns]);
    let t0 = performance.now();
    stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir,
      workers: 1,
      webhookConfigurationName: `knredis-bench-${process.pid}`,
      onSignal: 'kill',
    });
    const rows: (string | number)[][] = [];
    const note = (what: string, value: number | string, detail: string) => {
      rows.push([what, value, detail]);
      console.error(`${what}: ${value} (${detail})`);
    };
    note(
      'operator stack start (s)',
      seconds(performance.now() - t0),
      'queue Redis, webhooks + CRD, ingest + dashboard, 1 reconcile worker, event source',
    );
    const apply = (name: string, masters: number) =>
      env!.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'cache.redis.io/v1beta1',
          kind: 'RedisCluster',
          metadata: { name, namespace: ns },
          spec: { masters, replicasPerMaster: 1, storage: { reclaim: 'Delete' } },
        }),
      });
    const remove = async (view: ClusterView) => {
      await env!.kubectl(['delete', 'rediscluster', view.name, '-n', ns, '--wait=false']);
      await view.until(`${view.name} deleted`, (rc) => rc === undefined, 180_000);
    };

    // 1: a 3x1 cluster, from apply to Ready in full shape
    const small = new ClusterView(env, ns, 'small');
    t0 = performance.now();
    await apply('small', 3);
    await small.until('3x1 in full shape', fullShape(3, 1), 300_000);
    note('apply-to-Ready 3x1 (s)', seconds(performance.now() - t0), '6 pods');

    // 2: what one reconcile of the steady cluster costs the API server, as its audit log says
    const audit = new AuditLog(auditPaths(env.state.dir).log);
    const steady = await steadyRequests(env, audit, ns, 'small', STEADY_PASSES);
    note('API reads per steady reconcile', steady.reads, `mean of ${steady.passes} passes of the worker (audit log)`);
    note(
      'API writes per steady reconcile',
      steady.writes,
      [...steady.byKind]
        .filter(([k]) => !/^(get|list|watch) /.test(k))
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ') || 'none',
    );
    const requestsTable = {
      title: `API requests of one steady reconcile (mean of ${steady.passes}; target: <= 3 reads, 0 writes)`,
      columns: ['request', 'per reconcile'],
      rows: [...steady.byKind].sort().map(([k, n]): (string | number)[] => [k, n]),
    };
    const summary = () => ({
      ...Object.fromEntries(rows.map(([what, value]) => [what, value])),
      steadyReads: steady.reads,
      steadyWrites: steady.writes,
    });
    const lifecycleTable = () => ({
      title: 'RedisCluster lifecycle, operator as separate processes, local Kubernetes (shared 2-core machine: noisy)',
      columns: ['figure', 'value', 'detail'],
      rows,
    });
    if (steadyOnly) return { tables: [lifecycleTable(), requestsTable], summary: summary() };

    // 3: keys and a client, for the heals and the scale-out
    const password = await small.password();
    const pool = new NodePool({ auth: { password } });
    try {
      const pods = await small.pods();
      await bulkLoad(
        await observe(
          pods.map((p) => ({ name: p.name, address: { ip: p.ip, port: 6379 }, nodeName: p.node })),
          pool,
        ),
        'k',
        keys,
        password,
      );
    } finally {
      await pool.close();
    }
    load = new ClientLoad(
      ((await small.get())?.status?.shards ?? []).map((s) => ({ ip: s.master?.ip ?? '', port: 6379 })),
      'k',
      keys,
      password,
    );
    let reported: LoadReport = { ops: 0, errors: 0, mismatches: 0, samples: [] };
    const loadSince = async () => {
      const now = await load!.stop();
      const d = { ops: now.ops - reported.ops, errors: now.errors - reported.errors };
      reported = now;
      return d;
    };

    // 4: a master dies, twice: its pod deleted with grace 0; its redis-server SIGKILLed
    for (const how of ['pod deleted, grace 0', 'redis-server SIGKILLed'] as const) {
      const master = (await small.get())?.status?.shards?.[1]?.master?.pod ?? '';
      const before = (await small.pods()).find((p) => p.name === master);
      load.start(2);
      t0 = performance.now();
      if (how === 'pod deleted, grace 0')
        await env.kubectl(['delete', 'pod', master, '-n', ns, '--grace-period=0', '--force', '--wait=false']);
      else await env.kubelet.crashPod(ns, master);
      for (let i = 0; ; i++) {
        const pod = (await small.pods()).find((p) => p.name === master && !p.terminating);
        const back =
          pod &&
          pod.ip &&
          (how === 'pod deleted, grace 0' ? pod.uid !== before?.uid : pod.restarts > (before?.restarts ?? 0));
        if (back && fullShape(3, 1)(await small.get()) && (await redisInShape(small, password, 3, 1))) break;
        if (i > 1200) throw new Error(`${master} not healed after ${how} within ~5 minutes`);
        await sleep(250);
      }
      const ms = performance.now() - t0;
      const d = await loadSince();
      note(
        `heal: master ${how} (s)`,
        seconds(ms),
        `${master} back, full shape in status and in Redis; client meanwhile: ${d.ops} ops, ${d.errors} errors`,
      );
    }

    // 5: scale-out 3 -> 6 masters with the keys, the client running
    load.start(2);
    t0 = performance.now();
    await env.kubectl([
      'patch',
      'rediscluster',
      'small',
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { masters: 6 } }),
    ]);
    await small.until('6x1 in full shape after scale-out', fullShape(6, 1), 900_000);
    const scaleMs = performance.now() - t0;
    const d = await loadSince();
    const lost = (await load.verify()).length;
    note(
      'scale-out 3 -> 6 masters (s)',
      seconds(scaleMs),
      `${keys} keys; client meanwhile: ${d.ops} ops, ${d.errors} errors; ${lost} keys lost or stale after`,
    );
    await load.close();
    load = undefined;
    await remove(small);

    // 6: a 6x1 cluster, from apply to Ready in full shape
    const large = new ClusterView(env, ns, 'large');
    t0 = performance.now();
    await apply('large', 6);
    await large.until('6x1 in full shape', fullShape(6, 1), 400_000);
    note('apply-to-Ready 6x1 (s)', seconds(performance.now() - t0), '12 pods');
    await remove(large);

    return { tables: [lifecycleTable(), requestsTable], summary: summary() };
  } finally {
    await load?.stop().catch(() => undefined);
    await load?.close().catch(() => undefined);
    if (env && stack) {
      // The operator removes what is left (finalizers) before it stops.
      await env.kubectl(['delete', 'redisclusters', '--all', '-n', ns, '--wait=false']).catch(() => '');
      for (
        let i = 0;
        i < 240 && (await env.kubectl(['get', 'redisclusters', '-n', ns, '-o', 'name']).catch(() => '')).trim() !== '';
        i++
      )
        await sleep(500);
    }
    await stack?.stop().catch((e: Error) => console.error(e.message));
    if (env && reuse) await env.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => '');
    await rm(dir, { recursive: true, force: true });
    if (started) await stopEnvironment(started, { purge: true });
  }
}
