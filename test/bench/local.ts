// `npm run bench -- local [--cold] [--pods N]`: figures of the local environment.
//   cold build   the record build-binaries.sh wrote after its last real build, or with --cold
//                a real build in a temporary cache (empty Go build cache; tens of minutes)
//   warm up      `local:up` of a new environment with the binaries cached (what a user waits)
//   pod Ready    create-to-Ready latency of a redis:7 pod through scheduler and kubelet
//   idle RSS     memory of every process of the environment, idle, no pods
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { adminClient } from '../../infra/local/bootstrap.ts';
import { stopEnvironment } from '../../infra/local/environment.ts';
import { binDir, kubeletMain, localDir, repoRoot } from '../../infra/local/paths.ts';
import { withDescendants } from '../../infra/local/processes.ts';
import { readState } from '../../infra/local/state.ts';
import { percentile, type BenchResult, type BenchTable } from './table.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

async function coldBuild(cold: boolean): Promise<{ seconds: number | string; source: string }> {
  if (cold) {
    const cache = mkdtempSync(join(tmpdir(), 'knredis-cold-'));
    const started = Date.now();
    try {
      await run('bash', [join(localDir, 'build-binaries.sh')], {
        env: { ...process.env, KNREDIS_CACHE: cache, GOCACHE: join(cache, 'go-build') },
        maxBuffer: 64 << 20,
      });
      return {
        seconds: seconds(Date.now() - started),
        source: 'measured now (--cold: empty cache and Go build cache; modules from GOMODCACHE)',
      };
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }
  const record = join(dirname(binDir()), 'build-time.json');
  if (!existsSync(record))
    return { seconds: 'n/a', source: `no ${record} (binaries not built by build-binaries.sh here); run with --cold` };
  const r = JSON.parse(readFileSync(record, 'utf8')) as { seconds: number; cores: number; finishedAt: string };
  return { seconds: r.seconds, source: `${record} (${r.cores} cores, ${r.finishedAt})` };
}

function rssKiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function isReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

async function podLatencies(core: CoreV1Api, count: number): Promise<number[]> {
  const namespace = 'default';
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const name = `bench-${i}`;
    const started = Date.now();
    await core.createNamespacedPod({
      namespace,
      body: { metadata: { name }, spec: { containers: [{ name: 'redis', image: 'redis:7' }] } },
    });
    for (;;) {
      if (isReady(await core.readNamespacedPod({ name, namespace }))) break;
      if (Date.now() - started > 60_000) throw new Error(`pod ${name} not Ready within 60s`);
      await sleep(20);
    }
    latencies.push(Date.now() - started);
    await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
  }
  return latencies;
}

export default async function bench(args: string[]): Promise<BenchResult> {
  const cold = args.includes('--cold');
  const podCount = Number(args[args.indexOf('--pods') + 1] ?? 10) || 10;
  const build = await coldBuild(cold);
  await run('bash', [join(localDir, 'build-binaries.sh')]); // cached: instant
  const name = `bench-${process.pid}`;
  const started = Date.now();
  try {
    await run(process.execPath, ['--import', 'tsx', join(localDir, 'cli.ts'), 'up', '--name', name], { cwd: repoRoot });
    const upMs = Date.now() - started;
    const state = readState(name)!;
    const core = adminClient(state.kubeconfig).makeApiClient(CoreV1Api);
    const hasKubelet = existsSync(kubeletMain);
    const latencies = hasKubelet ? await podLatencies(core, podCount) : [];
    await sleep(10_000); // let the pods go and the environment settle before reading memory
    const rss = Object.entries(state.processes).map(([component, p]) => {
      const pids = withDescendants([p!.pid]);
      return { component, pids: pids.length, mib: pids.reduce((sum, pid) => sum + rssKiB(pid), 0) / 1024 };
    });
    const total = rss.reduce((sum, r) => sum + r.mib, 0);
    const downStarted = Date.now();
    await stopEnvironment(name, { purge: true });
    const downMs = Date.now() - downStarted;
    const pod =
      latencies.length > 0
        ? { p50: percentile(latencies, 50), p90: percentile(latencies, 90), max: Math.max(...latencies) }
        : undefined;
    const figures: BenchTable = {
      title: 'local environment',
      columns: ['figure', 'value', 'note'],
      rows: [
        ['cold build of the binaries (s)', build.seconds, build.source],
        ['warm local:up (s)', seconds(upMs), `new environment '${name}', ${state.nodes.length} nodes, binaries cached`],
        [
          'pod create-to-Ready p50 (ms)',
          pod?.p50 ?? 'n/a',
          pod ? `${latencies.length} redis:7 pods, one at a time` : `no kubelet (${kubeletMain} missing)`,
        ],
        ['pod create-to-Ready p90 (ms)', pod?.p90 ?? 'n/a', pod ? `max ${pod.max} ms` : ''],
        ['idle RSS, whole environment (MiB)', Math.round(total), `${rss.length} processes and their children`],
        ['local:down (s)', seconds(downMs), 'SIGTERM, grace, verified nothing left'],
      ],
    };
    const memory: BenchTable = {
      title: 'idle RSS per process',
      columns: ['process', 'pids', 'RSS (MiB)'],
      rows: rss.map((r) => [r.component, r.pids, Math.round(r.mib)]),
    };
    return {
      tables: [figures, memory],
      summary: {
        coldBuildSeconds: build.seconds,
        warmUpSeconds: seconds(upMs),
        podReadyMs: pod ?? null,
        idleRssMiB: Math.round(total),
        rssMiB: Object.fromEntries(rss.map((r) => [r.component, Math.round(r.mib)])),
        downSeconds: seconds(downMs),
      },
    };
  } finally {
    await stopEnvironment(name, { purge: true }).catch(() => {});
  }
}
