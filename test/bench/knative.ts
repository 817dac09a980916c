// `npm run bench -- knative [--outage-s 60] [--env NAME]`: with Knative's own ApiServerSource
// adapter as the only event source, the queue's Redis is stopped for --outage-s; a
// RedisCluster is scaled out during the outage. Ingest answers 503 while the queue is away, the
// adapter retries about 3 s and drops the event, so only the resync ingest owes after refusing
// events (functions/ingest/owed-resync.ts) brings the change in: the bench measures how long
// after the recovery the change is reconciled. The periodic resync is an hour away here. Also
// prints the cold build times of the Knative binaries (their build-time.json).
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEnvironment } from '../../infra/local/environment.ts';
import { adapterWatching, openWatches, startKnativeAdapter } from '../../infra/local/knative/adapter.ts';
import { knativeBuild } from '../../infra/local/knative/binaries.ts';
import { startOperatorStack, type OperatorStack } from '../../infra/local/operator-stack.ts';
import type { StackProcess } from '../../infra/local/stack-process.ts';
import { ClusterView, fullShape } from '../e2e/observe.ts';
import { localEnvironment } from '../support/local-env.ts';
import type { BenchResult } from './table.ts';

const option = (args: string[], name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const s = (ms: number) => Number((ms / 1000).toFixed(1));

export default async function knative(args: string[]): Promise<BenchResult> {
  const outageMs = Number(option(args, '--outage-s') ?? 60) * 1000;
  const reuse = option(args, '--env') ?? process.env.KNREDIS_BENCH_ENV;
  const started = reuse ? undefined : `bench-knative-${process.pid}`;
  if (started)
    await startEnvironment({ name: started, owner: process.pid, loopbackServices: true, progress: console.error });
  process.env.KNREDIS_TEST_ENV = reuse ?? started;
  const env = await localEnvironment();
  const ns = `bench-knative-${process.pid}`;
  let stack: OperatorStack | undefined;
  let adapter: StackProcess | undefined;
  try {
    await env.kubectl(['create', 'namespace', ns]);
    stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir: await mkdtemp(join(tmpdir(), 'knredis-bench-knative-')),
      webhookConfigurationName: `knredis-bench-knative-${process.pid}`,
      eventSource: 'none',
      extraEnv: { RESYNC_INTERVAL_MS: '3600000', RESYNC_JITTER_MS: '0' },
    });
    const metrics = async () => openWatches(await env.kubectl(['get', '--raw', '/metrics']));
    const before = await metrics();
    const running = await startKnativeAdapter({
      kubeconfig: env.kubeconfigPath,
      sink: stack.urls.ingest,
      log: join(stack.dir, 'logs', 'apiserver-adapter.log'),
    });
    adapter = running.process;
    await env.waitFor(async () => adapterWatching(running.config, before, await metrics()), {
      what: 'the adapter watching',
      timeout: 60_000,
    });
    // 1: a Ready cluster.
    const view = new ClusterView(env, ns, 'outage');
    await env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'outage', namespace: ns },
        spec: { masters: 3, replicasPerMaster: 0, storage: { reclaim: 'Delete' } },
      }),
    });
    await view.until('Ready with 3 masters', fullShape(3, 0));
    // 2: the queue's Redis stopped (a frozen one would still take the commands written to its
    // socket, and run them on waking); the scale-out made 5 s into the outage; then the same
    // redis-server started again on its port and data.
    await stack.stopQueue();
    const stoppedAt = performance.now();
    await sleep(5_000);
    await env.kubectl(['patch', 'rediscluster', 'outage', '-n', ns, '--type=merge', '-p', '{"spec":{"masters":4}}']);
    await sleep(Math.max(0, outageMs - (performance.now() - stoppedAt)));
    await stack.startQueue();
    const resumedAt = performance.now();
    // 3: the first reconcile that saw the change, and Ready in the new shape.
    const generation = (await view.get())!.metadata.generation;
    await view.until('a reconcile of the change', (rc) =>
      (rc?.status?.conditions ?? []).some((c) => c.observedGeneration === generation),
    );
    const seen = performance.now() - resumedAt;
    await view.until('Ready with 4 masters', fullShape(4, 0));
    const ready = performance.now() - resumedAt;
    const dropped = (readFileSync(adapter.log, 'utf8').match(/failed to send cloudevent/g) ?? []).length;
    const build = join(knativeBuild().dir, 'build-time.json');
    const times = existsSync(build)
      ? (JSON.parse(readFileSync(build, 'utf8')) as { seconds: number; builds: Record<string, number>; cores: number })
      : undefined;
    return {
      tables: [
        {
          title: `Knative ApiServerSource adapter, queue Redis stopped ${s(outageMs)} s, scale-out 5 s into it`,
          columns: ['what', 'value'],
          rows: [
            ['change reconciled after the recovery (s)', s(seen)],
            ['Ready with 4 masters after the recovery (s)', s(ready)],
            ['events the adapter gave up on (503 after its retries)', dropped],
            ['periodic resync (the bound without the owed resync)', '3600 s here, 300 s + 30 s jitter by default'],
          ],
        },
        ...(times
          ? [
              {
                title: `Knative ${knativeBuild().version} cold build (go build, ${times.cores} cores)`,
                columns: ['binary', 'seconds'],
                rows: [...Object.entries(times.builds), ['total', times.seconds]] as (string | number)[][],
              },
            ]
          : []),
      ],
      summary: {
        outageS: s(outageMs),
        reconciledAfterRecoveryS: s(seen),
        readyAfterRecoveryS: s(ready),
        eventsDropped: dropped,
        build: times,
      },
    };
  } finally {
    await adapter?.stop(10_000).catch(() => {});
    await env.kubectl(['delete', 'rediscluster', '--all', '-n', ns, '--timeout=120s']).catch(() => {});
    await stack?.stop().catch(() => {});
    await env.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => {});
  }
}
