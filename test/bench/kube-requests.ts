// `npm run bench -- kube-requests [--requests 1000] [--at-once 8] [--rounds 3] [--env NAME]`:
// what an API request costs the functions' client and the API server, on the local Kubernetes:
// client-node as it comes (a new https.Agent, so a new TLS connection, per request) against the
// functions' KubeConfig (functions/kube.ts: one keep-alive agent, shared/io/kube/keep-alive.ts).
// Each variant runs in a process of its own (kube-requests-process.ts), in turns, `rounds`
// times; the table has the medians. The API server's CPU is read from /proc around each run.
// --env NAME (or KNREDIS_BENCH_ENV) uses a running environment; otherwise one is started and stopped.
import { startEnvironment, stopEnvironment } from '../../infra/local/environment.ts';
import { localEnvironment } from '../support/local-env.ts';
import { runKubeRequests, type KubeRequestsReport, type Variant } from './kube-requests-process.ts';
import { cpuSeconds } from './proc.ts';
import { percentile, type BenchResult } from './table.ts';

const option = (args: string[], name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const VARIANTS: readonly Variant[] = ['client-node', 'functions'];

interface Measured extends KubeRequestsReport {
  readonly apiserverCpuMsPerRequest: number;
}

export default async function kubeRequests(args: string[]): Promise<BenchResult> {
  const requests = Number(option(args, '--requests') ?? 1000);
  const atOnce = Number(option(args, '--at-once') ?? 8);
  const rounds = Number(option(args, '--rounds') ?? 3);
  const reuse = option(args, '--env') ?? process.env.KNREDIS_BENCH_ENV;
  const started = reuse ? undefined : `bench-kube-requests-${process.pid}`;
  if (started)
    await startEnvironment({ name: started, owner: process.pid, progress: (m) => console.error(`local: ${m}`) });
  process.env.KNREDIS_TEST_ENV = reuse ?? started;
  try {
    const env = await localEnvironment();
    const apiserver = env.state.processes['kube-apiserver']?.pid;
    const measured = new Map<Variant, Measured[]>(VARIANTS.map((v) => [v, []]));
    for (let round = 0; round < rounds; round++)
      for (const variant of VARIANTS) {
        const before = cpuSeconds(apiserver);
        const report = await runKubeRequests({ kubeconfig: env.kubeconfigPath, variant, requests, atOnce });
        const apiserverCpuMsPerRequest = ((cpuSeconds(apiserver) - before) * 1000) / requests;
        measured.get(variant)!.push({ ...report, apiserverCpuMsPerRequest });
        console.error(JSON.stringify({ round, variant, ...report, apiserverCpuMsPerRequest }));
      }
    const median = (variant: Variant, f: (m: Measured) => number) =>
      Math.round(percentile(measured.get(variant)!.map(f), 50) * 100) / 100;
    const figures = (v: Variant) => ({
      requestsPerSecond: Math.round(median(v, (m) => requests / m.seconds)),
      tlsConnections: median(v, (m) => m.tlsConnections),
      clientCpuMsPerRequest: median(v, (m) => m.cpuMsPerRequest),
      apiserverCpuMsPerRequest: median(v, (m) => m.apiserverCpuMsPerRequest),
      rssGrowthMb: median(v, (m) => m.rssGrowthMb),
    });
    const summary = { 'client-node': figures('client-node'), functions: figures('functions') };
    return {
      tables: [
        {
          title: `${requests} GETs of a Namespace, ${atOnce} at once, one process per run; median of ${rounds} runs each (/proc for the API server's CPU, which includes its own background work)`,
          columns: [
            'client',
            'requests/s',
            'TLS connections',
            'client CPU ms/request',
            'API server CPU ms/request',
            'client RSS growth (MB)',
          ],
          rows: VARIANTS.map((v) => [
            v === 'functions' ? 'functions (keep-alive agent)' : 'client-node alone (agent per request)',
            summary[v].requestsPerSecond,
            summary[v].tlsConnections,
            summary[v].clientCpuMsPerRequest,
            summary[v].apiserverCpuMsPerRequest,
            summary[v].rssGrowthMb,
          ]),
        },
      ],
      summary: { requests, atOnce, rounds, ...summary },
    };
  } finally {
    if (started) await stopEnvironment(started, { purge: true }).catch(() => {});
  }
}
