// knredis installed into a local environment whose pods are containers, as the README tells users
// to install it: the images built here (no registry is reachable: infra/image/*.sh tag them as
// the manifests name them), the namespace and the two Secrets the overlay reads, then
// `kubectl apply --server-side -k infra/overlays/kubernetes` and every rollout awaited. Used by
// `npm run dev -- --in-cluster` and the in-cluster e2e.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { runBuildScript, type Progress } from './binaries.ts';
import type { Kubectl } from './kubectl.ts';
import { repoRoot } from './paths.ts';

export const OPERATOR_NAMESPACE = 'knredis-system';
/** The Deployments of infra/kubernetes, each under a ServiceAccount of its own name. */
export const OPERATOR_DEPLOYMENTS = [
  'knredis-webhooks',
  'knredis-event-source',
  'knredis-ingest',
  'knredis-reconcile',
  'knredis-dashboard',
] as const;
export const QUEUE_SECRET = 'knredis-queue-redis';
export const DASHBOARD_SECRET = 'knredis-dashboard';

export interface InstallOptions {
  readonly kubectl: Kubectl;
  readonly progress?: Progress;
  /** The dashboard's bearer token; a random one when absent (it stays in its Secret). */
  readonly dashboardToken?: string;
}

/**
 * The images the overlay and a RedisCluster's pods name: knredis:0.1.0, redis:7.x and the
 * exporter's. Each script builds once, then finds its image in podman's storage.
 */
export async function buildImages(progress: Progress = () => {}): Promise<void> {
  for (const script of ['build-image.sh', 'build-redis.sh', 'build-exporter.sh'])
    await runBuildScript(join(repoRoot, 'infra', 'image', script), progress, (out) => out.length > 0);
}

/** Installs the operator and waits until every Deployment and the queue's Redis have rolled out. */
export async function installOperator(options: InstallOptions): Promise<void> {
  const { kubectl } = options;
  const progress = options.progress ?? (() => {});
  await ensure(kubectl, ['get', 'namespace', OPERATOR_NAMESPACE], ['create', 'namespace', OPERATOR_NAMESPACE]);
  const ns = ['-n', OPERATOR_NAMESPACE];
  await ensureSecret(kubectl, QUEUE_SECRET, { password: secret() });
  await ensureSecret(kubectl, DASHBOARD_SECRET, { token: options.dashboardToken ?? secret() });
  progress('kubectl apply --server-side -k infra/overlays/kubernetes');
  await kubectl(['apply', '--server-side', '-k', join(repoRoot, 'infra', 'overlays', 'kubernetes')]);
  for (const deployment of OPERATOR_DEPLOYMENTS) {
    progress(`rollout of ${deployment}`);
    await kubectl([...ns, 'rollout', 'status', `deployment/${deployment}`, '--timeout=300s']);
  }
  await kubectl([...ns, 'rollout', 'status', 'statefulset/knredis-queue-redis', '--timeout=300s']);
}

export interface OperatorUrls {
  /** The dashboard's queue page, at its Service's ClusterIP (routed on this host). */
  readonly dashboard: string;
  /** /metrics of the dashboard and of the reconcile workers' Service. */
  readonly metrics: string[];
}

/** Where the installed operator answers from this host: its Services' ClusterIPs. */
export async function operatorUrls(kubectl: Kubectl): Promise<OperatorUrls> {
  const service = async (name: string) => {
    const svc = JSON.parse(await kubectl(['-n', OPERATOR_NAMESPACE, 'get', 'service', name, '-o', 'json'])) as {
      spec: { clusterIP: string; ports: { name?: string; port: number }[] };
    };
    const port = svc.spec.ports.find((p) => p.name === 'http') ?? svc.spec.ports[0]!;
    return `http://${svc.spec.clusterIP}:${port.port}`;
  };
  const dashboard = await service('knredis-dashboard');
  return {
    dashboard: `${dashboard}/admin/queues`,
    metrics: [`${dashboard}/metrics`, `${await service('knredis-reconcile-metrics')}/metrics`],
  };
}

/**
 * A Secret of the operator's namespace, made once: a second install (a reused environment) keeps
 * it, as the queue's Redis holds its password. The values go to kubectl on its standard input,
 * never on a command line (which `ps` shows) nor in a message.
 */
async function ensureSecret(kubectl: Kubectl, name: string, stringData: Record<string, string>): Promise<void> {
  const object = { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: OPERATOR_NAMESPACE }, stringData };
  await ensure(
    kubectl,
    ['-n', OPERATOR_NAMESPACE, 'get', 'secret', name],
    ['create', '-f', '-'],
    JSON.stringify(object),
  );
}

async function ensure(kubectl: Kubectl, get: string[], create: string[], input?: string): Promise<void> {
  const present = await kubectl(get).then(
    () => true,
    (error: Error) => {
      if (/NotFound|not found/.test(error.message)) return false;
      throw error;
    },
  );
  if (!present) await kubectl(create, input === undefined ? {} : { input });
}

function secret(): string {
  return randomBytes(18).toString('base64url');
}
