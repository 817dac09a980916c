// `npm run bench -- fleet [--clusters 100] [--masters 3] [--replicas 1] [--rest-s 300] [--env NAME]
//   [--probe-period-scale N] [--runs bundle|sources] [--live-heap] [--node-options "..."]`:
// a fleet of RedisClusters created at once on the local Kubernetes, the operator as separate
// processes (event source -> ingest -> queue -> one reconcile worker). Sampled every 5 s until
// all are Ready in full shape: how many are Ready, the queue depth, the worker's and ingest's
// memory, the machine's load, and the API requests per second (the API server's audit log, by
// User-Agent). Then --rest-s at rest, with the periodic resync every 60 s: requests per minute.
// --env NAME (or KNREDIS_BENCH_ENV) uses a running environment started with --audit and enough
// nodes (110 pods each); otherwise one is started and stopped, its kubelet running probes
// --probe-period-scale times less often than pods ask (default 1). On one machine every pod's
// probes and every redis-server share its cores, which a real fleet spreads over its nodes:
// measured here, a Redis pod's readiness probe (sh, redis-cli and grep every 5 s) costs about
// 35 ms of CPU, 4.2 cores for 600 pods, and an idle cluster-mode redis-server 0.23% of a core,
// 1.4 cores for 600.
// The worker's and ingest's CPU seconds are read apart from the rest, for the operator's own cost.
// --live-heap adds what the worker holds, from a heap snapshot (live-heap.ts) of the worker with
// one cluster and at rest; the snapshot keeps some 80 MB of native memory, so the RSS figures
// after the first one are that much higher, and are compared with each other only.
// The functions run the bundle the image runs (built first), or with --runs sources through tsx,
// whose transpiled sources and source maps add some 100 MB to each process.
import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditPaths } from '../../infra/local/control-plane.ts';
import { startEnvironment } from '../../infra/local/environment.ts';
import { stopEnvironment } from '../../infra/local/stop.ts';
import { startOperatorStack, type OperatorStack } from '../../infra/local/operator-stack.ts';
import { RECONCILE_USER_AGENT } from '../../functions/reconcile/index.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { fullShape } from '../e2e/observe.ts';
import { localEnvironment, type LocalEnvironment } from '../support/local-env.ts';
import { AuditLog, isRead, isWatch, type AuditedRequest } from './audit-log.ts';
import { liveHeap, liveHeapNodeOptions } from './live-heap.ts';
import { cpuSeconds, rssMb } from './proc.ts';
import { percentile, type BenchResult } from './table.ts';
import { countBy, workerRuns, type WorkerRun } from './worker-runs.ts';

const option = (args: string[], name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SAMPLE_MS = 5_000;
const RESYNC_MS = 60_000;
/** The local kubelet's pod capacity per node (infra/local/kubelet/node-spec.ts). */
const PODS_PER_NODE = 110;
/** The one cluster created alone first, the baseline of the targets. */
const SOLO = 'solo';

/**
 * Who made a request, from its User-Agent: the reconcile worker, the operator's other
 * functions (event source, ingest, webhooks: `knredis-*`), the bench's kubectl, or the
 * cluster itself (control plane and kubelets).
 */
function requester(r: AuditedRequest): 'worker' | 'operator' | 'bench' | 'cluster' {
  if (r.userAgent.startsWith(RECONCILE_USER_AGENT)) return 'worker';
  if (r.userAgent.startsWith('knredis-')) return 'operator';
  if (r.userAgent.startsWith('kubectl')) return 'bench';
  return 'cluster';
}

interface Sample {
  readonly s: number;
  readonly ready: number;
  readonly depth: number;
  readonly workerMb: number;
  /** The worker's V8 heap in use (prom-client's nodejs_heap_size_used_bytes), MB. */
  readonly workerHeapMb: number;
  /** The worker's V8 heap as reserved from the system (nodejs_heap_size_total_bytes), MB: in its RSS. */
  readonly workerHeapTotalMb: number;
  readonly frontMb: number;
  /** CPU seconds used since the fleet was applied. */
  readonly workerCpuS: number;
  readonly frontCpuS: number;
  readonly load: number;
  readonly workerRps: number;
  readonly operatorRps: number;
  /** The control plane's and the kubelet's own requests (not the operator's). */
  readonly clusterRps: number;
  /** CPU seconds since the fleet was applied: the kubelet's own process (not its pods or probes), the API server's. */
  readonly kubeletCpuS: number;
  readonly apiserverCpuS: number;
}

export default async function fleet(args: string[]): Promise<BenchResult> {
  const clusters = Number(option(args, '--clusters') ?? 100);
  const masters = Number(option(args, '--masters') ?? 3);
  const replicas = Number(option(args, '--replicas') ?? 1);
  const restMs = Number(option(args, '--rest-s') ?? 300) * 1000;
  const probePeriodScale = Number(option(args, '--probe-period-scale') ?? 1);
  const runs = option(args, '--runs') ?? 'bundle';
  const measureLiveHeap = args.includes('--live-heap');
  // Node.js options for the functions (V8's heap limits, say), to measure their effect.
  const nodeOptions = option(args, '--node-options');
  if (runs !== 'bundle' && runs !== 'sources') throw new Error(`--runs is bundle or sources, not ${runs}`);
  if (runs === 'bundle') execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  const pods = clusters * masters * (1 + replicas);
  const reuse = option(args, '--env') ?? process.env.KNREDIS_BENCH_ENV;
  const started = reuse ? undefined : `bench-fleet-${process.pid}`;
  const nodes = Math.max(3, Math.ceil(((pods + masters * (1 + replicas)) * 1.2) / PODS_PER_NODE));
  if (started)
    await startEnvironment({
      name: started,
      owner: process.pid,
      audit: true,
      nodes,
      probePeriodScale,
      // With the environment's 6 s node grace, its one kubelet process, late with heartbeats
      // for ~600 pods on 2 cores, had nodes flap NotReady and their pods evicted (first run).
      standardNodeTimings: true,
      progress: (m) => console.error(`local: ${m}`),
    });
  process.env.KNREDIS_TEST_ENV = reuse ?? started;
  const ns = `bench-fleet-${process.pid}`;
  let env: LocalEnvironment | undefined;
  let stack: OperatorStack | undefined;
  try {
    env = await localEnvironment();
    await env.kubectl(['create', 'namespace', ns]);
    // Heap snapshots of the worker, for what it holds (live-heap.ts), are written here.
    const snapshots = measureLiveHeap ? await mkdtemp(join(tmpdir(), 'knredis-bench-fleet-heap-')) : '';
    const functionsNodeOptions = [measureLiveHeap && liveHeapNodeOptions(snapshots), nodeOptions]
      .filter(Boolean)
      .join(' ');
    stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir: await mkdtemp(join(tmpdir(), 'knredis-bench-fleet-')),
      workers: 1,
      webhookConfigurationName: `knredis-bench-fleet-${process.pid}`,
      onSignal: 'kill',
      runs,
      extraEnv: {
        RESYNC_INTERVAL_MS: String(RESYNC_MS),
        RESYNC_JITTER_MS: '10000',
        ...(functionsNodeOptions ? { NODE_OPTIONS: functionsNodeOptions } : {}),
      },
    });
    const audit = new AuditLog(auditPaths(env.state.dir).log);
    const list = async () =>
      (
        JSON.parse(await env!.kubectl(['get', 'redisclusters', '-n', ns, '-o', 'json'])) as { items: RedisCluster[] }
      ).items.filter((c) => c.metadata.name !== SOLO);
    const aCluster = (name: string) => ({
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name, namespace: ns },
      spec: { masters, replicasPerMaster: replicas, storage: { reclaim: 'Delete' } },
    });
    // The baseline the targets compare with: one cluster alone, its time to Ready and the
    // worker's memory then (it stays, as the fleet's 101st cluster).
    const soloStarted = performance.now();
    await env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(aCluster(SOLO)) });
    for (;;) {
      const solo = JSON.parse(await env.kubectl(['get', 'rediscluster', SOLO, '-n', ns, '-o', 'json'])) as RedisCluster;
      if (fullShape(masters, replicas)(solo)) break;
      if (performance.now() - soloStarted > 600_000) throw new Error('one cluster alone was not Ready in 10 minutes');
      await sleep(1_000);
    }
    const soloS = Math.round((performance.now() - soloStarted) / 1000);
    const soloWorkerMb = rssMb(stack.pids()['worker-0']);
    console.error(JSON.stringify({ solo: { seconds: soloS, workerMb: soloWorkerMb } }));
    // The worker's V8 heap from its /metrics, MB: used, and reserved (total) by space.
    const workerHeap = async () => {
      const text = await (await fetch(stack!.urls.workerMetrics[0]!)).text();
      const mb = (metric: string) =>
        Math.round(Number(new RegExp(`^${metric}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20);
      return {
        usedMb: mb('nodejs_heap_size_used_bytes'),
        totalMb: mb('nodejs_heap_size_total_bytes'),
        newSpaceMb: mb('nodejs_heap_space_size_total_bytes\\{space="new"\\}'),
        oldSpaceMb: mb('nodejs_heap_space_size_total_bytes\\{space="old"\\}'),
        externalMb: mb('nodejs_external_memory_bytes'),
      };
    };
    const noHeap = { usedMb: NaN, totalMb: NaN, newSpaceMb: NaN, oldSpaceMb: NaN, externalMb: NaN };
    const soloHeap = await workerHeap();
    const soloWorkerHeapMb = soloHeap.usedMb;
    const soloLive = measureLiveHeap ? await liveHeap(stack.pids()['worker-0']!, snapshots) : undefined;
    const depth = async () => {
      const text = await (await fetch(stack!.urls.metrics)).text();
      return Number(/^workqueue_depth\{[^}]*\} (\d+)/m.exec(text)?.[1] ?? NaN);
    };
    const samples: Sample[] = [];
    let lastHeap = soloHeap;
    let offset = await audit.size();
    let last = performance.now();
    const t0 = performance.now();
    const sample = async (): Promise<Sample> => {
      const now = performance.now();
      const read = await audit.read(offset);
      const requests = read.requests.filter((r) => !isWatch(r));
      offset = read.end;
      const elapsedS = (now - last) / 1000;
      last = now;
      const perS = (who: string) =>
        elapsedS < 1 ? 0 : Math.round(requests.filter((r) => requester(r) === who).length / elapsedS);
      const pids = stack!.pids();
      const items = await list();
      const heap = await workerHeap().catch(() => noHeap);
      lastHeap = heap;
      const s: Sample = {
        s: Math.round((now - t0) / 1000),
        ready: items.filter(fullShape(masters, replicas)).length,
        depth: await depth().catch(() => NaN),
        workerMb: rssMb(pids['worker-0']),
        workerHeapMb: heap.usedMb,
        workerHeapTotalMb: heap.totalMb,
        frontMb: rssMb(pids.front),
        workerCpuS: Math.round(cpuSeconds(pids['worker-0']) - cpuAtStart.worker),
        frontCpuS: Math.round(cpuSeconds(pids.front) - cpuAtStart.front),
        load: Math.round(loadavg()[0]! * 10) / 10,
        workerRps: perS('worker'),
        operatorRps: perS('operator'),
        clusterRps: perS('cluster'),
        kubeletCpuS: Math.round(cpuSeconds(envPid('kubelet')) - cpuAtStart.kubelet),
        apiserverCpuS: Math.round(cpuSeconds(envPid('kube-apiserver')) - cpuAtStart.apiserver),
      };
      samples.push(s);
      console.error(JSON.stringify(s));
      return s;
    };
    const envPid = (component: 'kubelet' | 'kube-apiserver') => env!.state.processes[component]?.pid;
    const cpuAtStart = {
      worker: cpuSeconds(stack.pids()['worker-0']),
      front: cpuSeconds(stack.pids().front),
      kubelet: cpuSeconds(envPid('kubelet')),
      apiserver: cpuSeconds(envPid('kube-apiserver')),
    };
    await sample();
    const workerLog = stack.logs['worker-0']!;
    const appliedAt = Date.now();
    // All at once: one kubectl apply of a List. kubectl creates them one by one, each through
    // the admission webhook: 100 took over a minute on the busy machine.
    await env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: Array.from({ length: clusters }, (_, i) => aCluster(`f${i}`)),
      }),
      timeoutMs: 900_000,
    });
    const appliedS = Math.round((performance.now() - t0) / 1000);
    let firstReadyS: number | undefined;
    for (;;) {
      await sleep(SAMPLE_MS);
      const s = await sample();
      if (s.ready > 0) firstReadyS ??= s.s;
      if (s.ready === clusters) break;
      if (s.s > 3_600) throw new Error(`only ${s.ready} of ${clusters} Ready after an hour`);
    }
    const allReadyS = samples.at(-1)!.s;
    // At rest: requests per minute over resync periods.
    const restFrom = await audit.size();
    const restStarted = performance.now();
    const restStartedAt = Date.now();
    while (performance.now() - restStarted < restMs) {
      await sleep(SAMPLE_MS);
      await sample();
    }
    const rest = (await audit.since(restFrom)).filter((r) => !isWatch(r));
    const restLive = measureLiveHeap ? await liveHeap(stack.pids()['worker-0']!, snapshots) : undefined;
    const restMinutes = (performance.now() - restStarted) / 60_000;
    // Why the worker ran at rest, and how long a pass of a Ready cluster took then, against the
    // passes of the one cluster alone once it was Ready (its log, before the fleet was applied).
    const restRuns = await workerRuns(workerLog, restStartedAt);
    const steadyMs = (runs: readonly WorkerRun[]) =>
      runs.filter((r) => r.outcome === 'done' && r.summary === 'cluster is ready').map((r) => r.ms);
    const soloSteadyMs = steadyMs(await workerRuns(workerLog, 0, appliedAt));
    const restSteadyMs = steadyMs(restRuns);
    const perMinute = (who: string) => Math.round(rest.filter((r) => requester(r) === who).length / restMinutes);
    // What the worker's requests at rest are, by verb and resource: the target is about reads
    // per steady reconcile, and a total alone does not say which read is over it.
    const restWorkerByKind = new Map<string, number>();
    for (const r of rest.filter((r) => requester(r) === 'worker'))
      restWorkerByKind.set(`${r.verb} ${r.resource}`, (restWorkerByKind.get(`${r.verb} ${r.resource}`) ?? 0) + 1);
    // Per steady reconcile: a pass starts with its GET of the RedisCluster. Per minute alone
    // depends on how many resync rounds fall in the window (60 s apart, 10 s of jitter: 2 or
    // 3 in 120 s); per pass does not. The resync's own list of every cluster is not a pass's.
    const restPasses = restWorkerByKind.get('get redisclusters') ?? 0;
    const restWorker = rest.filter((r) => requester(r) === 'worker');
    const perPass = (n: number) => (restPasses === 0 ? NaN : Math.round((n / restPasses) * 100) / 100);
    const restReadsPerPass = perPass(
      restWorker.filter((r) => isRead(r) && !(r.verb === 'list' && r.resource === 'redisclusters')).length,
    );
    const restWritesPerPass = perPass(restWorker.filter((r) => !isRead(r)).length);
    // What the worker holds at rest, after the ramp: the median of the rest samples. The peak
    // is the ramp's, bound by how many passes run at once (WORKER_CONCURRENCY), not by the fleet.
    const restSamples = samples.slice(samples.findIndex((x) => x.s > allReadyS));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    const restWorkerMb = median(restSamples.map((x) => x.workerMb));
    const restWorkerHeapMb = median(restSamples.map((x) => x.workerHeapMb).filter((n) => !Number.isNaN(n)));
    const ramp = samples.filter((s) => s.s <= allReadyS);
    const peak = (f: (s: Sample) => number, of = samples) => Math.max(...of.map(f));
    const first = samples.find((s) => s.ready > 0) ?? samples[0]!;
    const summary = {
      clusters,
      shape: `${masters}x${replicas}`,
      pods,
      nodes: reuse ? undefined : nodes,
      allReady: true,
      secondsToApply: appliedS,
      secondsToFirstReady: firstReadyS,
      secondsToReady: allReadyS,
      soloSecondsToReady: soloS,
      soloWorkerRssMb: soloWorkerMb,
      probePeriodScale: reuse ? undefined : probePeriodScale,
      workerCpuSecondsToReady: samples.find((s) => s.s === allReadyS)!.workerCpuS,
      ingestCpuSecondsToReady: samples.find((s) => s.s === allReadyS)!.frontCpuS,
      kubeletCpuSecondsToReady: samples.find((s) => s.s === allReadyS)!.kubeletCpuS,
      apiserverCpuSecondsToReady: samples.find((s) => s.s === allReadyS)!.apiserverCpuS,
      workerRssMb: peak((s) => s.workerMb),
      workerRssMbAtFirstReady: first.workerMb,
      soloWorkerHeapMb,
      workerHeapMb: peak((s) => (Number.isNaN(s.workerHeapMb) ? 0 : s.workerHeapMb)),
      runs,
      ingestRssMb: peak((s) => s.frontMb),
      peakQueueDepth: peak((s) => (Number.isNaN(s.depth) ? 0 : s.depth)),
      rampWorkerRequestsPerS: Math.round(ramp.reduce((a, s) => a + s.workerRps, 0) / Math.max(1, ramp.length)),
      rampClusterRequestsPerS: Math.round(ramp.reduce((a, s) => a + s.clusterRps, 0) / Math.max(1, ramp.length)),
      peakLoad1m: peak((s) => s.load),
      restWorkerRequestsPerMin: perMinute('worker'),
      restPasses,
      restReadsPerPass,
      restWritesPerPass,
      restWorkerRssMb: restWorkerMb,
      restWorkerHeapMb,
      soloWorkerLiveHeapMb: soloLive?.liveMb,
      restWorkerLiveHeapMb: restLive?.liveMb,
      soloWorkerRssAfterSnapshotMb: soloLive?.rssMb,
      restWorkerRssAfterSnapshotMb: restLive?.rssMb,
      restOperatorRequestsPerMin: perMinute('operator'),
      restClusterRequestsPerMin: perMinute('cluster'),
      restRunsByReason: countBy(restRuns, (r) => r.reason),
      restRunsByOutcome: countBy(restRuns, (r) => `${r.outcome}: ${r.summary}`),
      soloSteadyPassMs: { n: soloSteadyMs.length, p50: percentile(soloSteadyMs, 50) },
      restSteadyPassMs: {
        n: restSteadyMs.length,
        p50: percentile(restSteadyMs, 50),
        p90: percentile(restSteadyMs, 90),
        max: Math.max(...restSteadyMs),
      },
      soloWorkerHeap: soloHeap,
      restWorkerHeap: lastHeap,
      restWorkerHeapTotalMb: median(restSamples.map((x) => x.workerHeapTotalMb).filter((n) => !Number.isNaN(n))),
      soloWorkerLiveHeapTop: soloLive?.top,
      restWorkerLiveHeapTop: restLive?.top,
      restWorkerPerMinByKind: Object.fromEntries(
        [...restWorkerByKind].map(([kind, n]) => [kind, Math.round((n / restMinutes) * 10) / 10]),
      ),
    };
    const every = Math.max(1, Math.floor(samples.length / 24));
    return {
      tables: [
        {
          title: `${clusters} RedisClusters ${masters}x${replicas} (${pods} redis-server processes) applied at once; one worker (${runs}${nodeOptions ? `, node ${nodeOptions}` : ''})${reuse ? '' : `; probes every period x ${probePeriodScale}`}`,
          columns: ['what', 'value', 'target'],
          rows: [
            ['one cluster alone: Ready (s) / worker RSS (MB)', `${soloS} / ${soloWorkerMb}`, 'the baseline'],
            ['Ready clusters', clusters, `all ${clusters}`],
            ['all applied (s)', appliedS, ''],
            ['first Ready (s)', firstReadyS ?? '-', ''],
            ['all Ready (s)', allReadyS, `no worse than linear: <= ${clusters} x ${soloS} = ${clusters * soloS}`],
            ['worker CPU s until all Ready', summary.workerCpuSecondsToReady, ''],
            ['ingest + dashboard CPU s until all Ready', summary.ingestCpuSecondsToReady, ''],
            [
              'kubelet (its own process) / API server CPU s until all Ready',
              `${summary.kubeletCpuSecondsToReady} / ${summary.apiserverCpuSecondsToReady}`,
              'not the operator',
            ],
            [
              'worker RSS at first Ready / peak (MB)',
              `${first.workerMb} / ${summary.workerRssMb}`,
              `flat: about ${soloWorkerMb} (one cluster)`,
            ],
            ['worker V8 heap used: one cluster / peak (MB)', `${soloWorkerHeapMb} / ${summary.workerHeapMb}`, ''],
            [
              'worker at rest, median: RSS / V8 heap used (MB)',
              `${restWorkerMb} / ${restWorkerHeapMb}`,
              `flat: about ${soloWorkerMb} / ${soloWorkerHeapMb} (one cluster)`,
            ],
            [
              'worker V8 heap reserved (in RSS): one cluster / at rest, median (MB)',
              `${soloHeap.totalMb} / ${summary.restWorkerHeapTotalMb}`,
              '',
            ],
            [
              'worker V8 new space / old space reserved; external memory: one cluster -> at rest (MB)',
              `${soloHeap.newSpaceMb} / ${soloHeap.oldSpaceMb}; ${soloHeap.externalMb} -> ${lastHeap.newSpaceMb} / ${lastHeap.oldSpaceMb}; ${lastHeap.externalMb}`,
              '',
            ],
            ...(soloLive && restLive
              ? [
                  [
                    'worker live heap (a heap snapshot, after a full GC): one cluster / at rest (MB)',
                    `${soloLive.liveMb} / ${restLive.liveMb}`,
                    `flat: about ${soloLive.liveMb}`,
                  ],
                  [
                    'worker RSS just after that snapshot: one cluster / at rest (MB)',
                    `${soloLive.rssMb} / ${restLive.rssMb}`,
                    "RSS above: + the first snapshot's",
                  ],
                  ...Object.entries(restLive.top).map(([holder, mb]) => [
                    `  live heap held by ${holder}: one cluster / at rest (MB)`,
                    `${soloLive.top[holder] ?? '<'} / ${mb}`,
                    '',
                  ]),
                ]
              : []),
            ['ingest + dashboard RSS peak (MB)', summary.ingestRssMb, ''],
            ['queue depth peak', summary.peakQueueDepth, ''],
            ['worker API requests/s during the ramp (mean)', summary.rampWorkerRequestsPerS, ''],
            [
              'control plane and kubelet API requests/s during the ramp (mean)',
              summary.rampClusterRequestsPerS,
              'not the operator',
            ],
            ['load average (1 min) peak, 2 cores', summary.peakLoad1m, ''],
            [
              `worker API requests/min at rest (resync every ${RESYNC_MS / 1000} s)`,
              summary.restWorkerRequestsPerMin,
              `${restPasses} passes in ${Math.round(restMinutes * 10) / 10} min`,
            ],
            [
              'worker API reads / writes per steady pass at rest',
              `${restReadsPerPass} / ${restWritesPerPass}`,
              '<= 3 / 0',
            ],
            [
              'steady pass (a Ready cluster) ms: one cluster alone p50 / at rest p50, p90',
              `${summary.soloSteadyPassMs.p50} / ${summary.restSteadyPassMs.p50}, ${summary.restSteadyPassMs.p90}`,
              `${summary.soloSteadyPassMs.n} / ${summary.restSteadyPassMs.n} passes`,
            ],
            ...Object.entries(summary.restRunsByReason).map(([reason, n]) => [
              `  worker runs at rest queued by ${reason} /min`,
              Math.round((n / restMinutes) * 10) / 10,
              '',
            ]),
            ['event source, ingest, webhooks API requests/min at rest', summary.restOperatorRequestsPerMin, ''],
            [
              'control plane and kubelets API requests/min at rest (not the operator)',
              summary.restClusterRequestsPerMin,
              '',
            ],
            ...Object.entries(summary.restWorkerPerMinByKind).map(([kind, n]) => [
              `  worker at rest: ${kind} /min`,
              n,
              '',
            ]),
          ],
        },
        {
          title: 'over time (every 5 s sample, thinned)',
          columns: [
            's',
            'Ready',
            'queue depth',
            'worker MB',
            'worker heap MB',
            'ingest MB',
            'worker CPU s',
            'load',
            'worker req/s',
            'operator req/s',
            'cluster req/s',
            'kubelet CPU s',
            'API server CPU s',
          ],
          rows: samples
            .filter((_, i) => i % every === 0 || i === samples.length - 1)
            .map((s) => [
              s.s,
              s.ready,
              s.depth,
              s.workerMb,
              s.workerHeapMb,
              s.frontMb,
              s.workerCpuS,
              s.load,
              s.workerRps,
              s.operatorRps,
              s.clusterRps,
              s.kubeletCpuS,
              s.apiserverCpuS,
            ]),
        },
      ],
      summary,
    };
  } finally {
    await env?.kubectl(['delete', 'redisclusters', '--all', '-n', ns, '--wait=false']).catch(() => {});
    await stack?.stop().catch(() => {});
    if (started) await stopEnvironment(started, { purge: true }).catch(() => {});
  }
}
