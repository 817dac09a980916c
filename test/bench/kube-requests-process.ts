// The kube-requests bench's client in a process of its own, so that each variant's CPU and
// memory are its own: `requests` GETs of a Namespace at `atOnce` in flight through one
// KubeConfig, either as client-node makes it (`client-node`) or as the functions load it
// (`functions`: functions/kube.ts, with keep-alive.ts). Counts the TLS connections it opens.
// Run as a script, this file is the child; imported, it gives the parent's handle.
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '../../functions/kube.ts';
import { reportOfChild, runAsChild } from './child-process.ts';

export type Variant = 'client-node' | 'functions';

export interface KubeRequestsSpec {
  readonly kubeconfig: string;
  readonly variant: Variant;
  readonly requests: number;
  readonly atOnce: number;
}

export interface KubeRequestsReport {
  readonly seconds: number;
  readonly tlsConnections: number;
  readonly cpuMsPerRequest: number;
  /** RSS after the requests less before them (after one warm-up request). */
  readonly rssGrowthMb: number;
}

const self = fileURLToPath(import.meta.url);

export function runKubeRequests(spec: KubeRequestsSpec): Promise<KubeRequestsReport> {
  return reportOfChild<KubeRequestsReport>(self, spec, 'the request client');
}

async function child(spec: KubeRequestsSpec): Promise<KubeRequestsReport> {
  const kc =
    spec.variant === 'functions'
      ? loadKubeConfig(spec.kubeconfig, 'knredis-bench')
      : (() => {
          const plain = new KubeConfig();
          plain.loadFromFile(spec.kubeconfig);
          return plain;
        })();
  const core = kc.makeApiClient(CoreV1Api);
  await core.readNamespace({ name: 'default' });
  let tlsConnections = 0;
  const connect = tls.connect;
  tls.connect = ((...args: Parameters<typeof tls.connect>) => {
    tlsConnections += 1;
    return connect(...args);
  }) as typeof tls.connect;
  const rssBefore = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: spec.atOnce }, async () => {
      while (next++ < spec.requests) await core.readNamespace({ name: 'default' });
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return {
    seconds: (performance.now() - started) / 1000,
    tlsConnections,
    cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / spec.requests,
    rssGrowthMb: (process.memoryUsage().rss - rssBefore) / 2 ** 20,
  };
}

if (process.argv[1] === self) await runAsChild(child);
