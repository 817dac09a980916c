// A real Prometheus (Debian's prometheus package) for the tests of infra/monitoring: the rules
// of the PrometheusRule loaded, a 1 s interval, and the scrape configs the Prometheus Operator
// makes of a ServiceMonitor (the local environment has no prometheus-operator): static ones where
// pods are processes on loopback (EndpointSlices refuse their addresses), and Kubernetes
// endpoints discovery (serviceMonitorScrapeConfigs) where pods are containers with routed IPs.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { cacheDir, repoRoot, versionOf } from '../../infra/local/paths.ts';
import { freeLoopbackPort, spawnStackProcess, type StackProcess } from '../../infra/local/stack-process.ts';
import { requireCommand } from './prerequisites.ts';
import { waitFor } from './wait-for.ts';

const monitoring = join(repoRoot, 'infra', 'monitoring');

export interface Relabeling {
  sourceLabels?: string[];
  targetLabel?: string;
  regex?: string;
  replacement?: string;
  action?: string;
}
export interface Monitor {
  metadata: { name: string; namespace: string };
  spec: {
    namespaceSelector?: { any?: boolean; matchNames?: string[] };
    selector: { matchLabels?: Record<string, string> };
    endpoints: { port: string; path?: string; relabelings?: Relabeling[] }[];
  };
}
export interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing' | 'inactive';
}
export interface StaticConfig {
  targets: string[];
  labels: Record<string, string>;
}
export interface ScrapeConfig {
  job_name: string;
  metrics_path: string;
  honor_labels: boolean;
  static_configs?: StaticConfig[];
  kubernetes_sd_configs?: { role: 'endpoints'; kubeconfig_file: string; namespaces?: { names: string[] } }[];
  relabel_configs?: Record<string, unknown>[];
}
export interface Target {
  health: string;
  labels: Record<string, string>;
  scrapeUrl: string;
  lastError: string;
}

/** The ServiceMonitors and the PrometheusRule's groups of infra/monitoring. */
export async function monitoringObjects() {
  const docs = async (file: string) =>
    parseAllDocuments(await readFile(join(monitoring, file), 'utf8')).map((d) => d.toJSON() as unknown);
  const monitors = (await docs('servicemonitor.yaml')) as Monitor[];
  const [rule] = (await docs('prometheusrule.yaml')) as { spec: { groups: unknown[] } }[];
  return { monitor: (name: string) => monitors.find((m) => m.metadata.name === name)!, groups: rule!.spec.groups };
}

export interface RunningPrometheus {
  readonly api: string;
  readonly process: StackProcess;
  query<T>(path: string): Promise<T>;
  /** The targets it scrapes, with the labels relabeling gave them and their health. */
  targets(): Promise<Target[]>;
  /** The alert of that name (any labels), if pending or firing. */
  alert(name: string): Promise<Alert | undefined>;
  /** Every alert of that name. */
  alerts(name: string): Promise<Alert[]>;
  /** The value of each series an instant query returns, by the label `by`. */
  values(promql: string, by: string): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus with infra/monitoring's rules and waits until `ready` says its active targets
 * are what the test expects: by default, every static target, each up.
 */
export async function startPrometheus(
  scrapeConfigs: ScrapeConfig[],
  ready: (targets: Target[]) => boolean = everyStaticTargetUp(scrapeConfigs),
): Promise<RunningPrometheus> {
  const command = prometheusFor(scrapeConfigs);
  const { groups } = await monitoringObjects();
  const dir = await mkdtemp(join(tmpdir(), 'knredis-prometheus-'));
  const config = {
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    rule_files: [join(dir, 'rules.yaml')],
    scrape_configs: scrapeConfigs,
  };
  await writeFile(join(dir, 'rules.yaml'), stringify({ groups }));
  await writeFile(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freeLoopbackPort();
  const api = `http://127.0.0.1:${port}`;
  const child = spawnStackProcess({
    name: 'prometheus',
    command,
    args: [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    cwd: dir,
    env: process.env,
    log: join(dir, 'prometheus.log'),
  });
  const query = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${api}/api/v1/${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error}`);
    return body.data;
  };
  const alerts = async (name: string) =>
    (await query<{ alerts: Alert[] }>('alerts')).alerts.filter((a) => a.labels.alertname === name);
  const targets = async () => (await query<{ activeTargets: Target[] }>('targets')).activeTargets;
  try {
    await waitFor(
      async () => {
        const active = await targets();
        return ready(active)
          ? true
          : !child.alive() && Promise.reject(new Error(`prometheus exited; see ${child.log}`));
      },
      { what: 'Prometheus scraping every target', timeout: 120_000 },
    );
  } catch (error) {
    await child.stop(10_000);
    throw error;
  }
  return {
    api,
    process: child,
    query,
    targets,
    alerts,
    alert: async (name) => (await alerts(name))[0],
    async values(promql, by) {
      const { result } = await query<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `query?query=${encodeURIComponent(promql)}`,
      );
      return Object.fromEntries(result.map((r) => [r.metric[by] ?? '', Number(r.value[1])]));
    },
    stop: () => child.stop(10_000),
  };
}

/**
 * Debian's prometheus where static targets do; the one build-prometheus.sh builds where the
 * configs discover targets in Kubernetes (Debian's package is built without that discovery).
 */
function prometheusFor(scrapeConfigs: ScrapeConfig[]): string {
  if (!scrapeConfigs.some((c) => c.kubernetes_sd_configs)) {
    requireCommand('prometheus');
    return 'prometheus';
  }
  const binary = join(cacheDir(), `prometheus-${versionOf('PROMETHEUS_VERSION')}`, 'bin', 'prometheus');
  if (!existsSync(binary))
    throw new Error(
      `prerequisite missing: Prometheus with Kubernetes discovery at ${binary} (run infra/local/build-prometheus.sh; npm test's integration step does)`,
    );
  return binary;
}

function everyStaticTargetUp(scrapeConfigs: ScrapeConfig[]) {
  const count = scrapeConfigs.reduce(
    (n, c) => n + (c.static_configs ?? []).reduce((m, s) => m + s.targets.length, 0),
    0,
  );
  return (active: Target[]) => active.length === count && active.every((t) => t.health === 'up');
}

/** A label name as Prometheus' Kubernetes discovery writes it: every other character is `_`. */
const labelName = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');

/**
 * The scrape configs the Prometheus Operator writes for a ServiceMonitor (one per endpoint,
 * Kubernetes endpoints discovery, as its config generator does): keep the Services whose labels
 * match the selector, the endpoint port of that name; label each target with its namespace,
 * service, pod, container, job (the Service's name) and endpoint (the port's name); then the
 * endpoint's own relabelings. Discovery reads the API server with `kubeconfig`.
 */
export function serviceMonitorScrapeConfigs(monitor: Monitor, kubeconfig: string): ScrapeConfig[] {
  const { namespaceSelector, selector, endpoints } = monitor.spec;
  const namespaces = namespaceSelector?.any
    ? undefined
    : { names: namespaceSelector?.matchNames ?? [monitor.metadata.namespace] };
  const keepSelected = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    action: 'keep',
    source_labels: [
      `__meta_kubernetes_service_label_${labelName(key)}`,
      `__meta_kubernetes_service_labelpresent_${labelName(key)}`,
    ],
    regex: `(${value});true`,
  }));
  return endpoints.map((endpoint, i) => ({
    job_name: `serviceMonitor/${monitor.metadata.namespace}/${monitor.metadata.name}/${i}`,
    metrics_path: endpoint.path ?? '/metrics',
    honor_labels: false,
    kubernetes_sd_configs: [{ role: 'endpoints', kubeconfig_file: kubeconfig, ...(namespaces ? { namespaces } : {}) }],
    relabel_configs: [
      ...keepSelected,
      { action: 'keep', source_labels: ['__meta_kubernetes_endpoint_port_name'], regex: endpoint.port },
      {
        source_labels: [
          '__meta_kubernetes_endpoint_address_target_kind',
          '__meta_kubernetes_endpoint_address_target_name',
        ],
        separator: ';',
        regex: 'Pod;(.*)',
        replacement: '${1}',
        target_label: 'pod',
      },
      { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
      { source_labels: ['__meta_kubernetes_service_name'], target_label: 'service' },
      { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
      { source_labels: ['__meta_kubernetes_pod_container_name'], target_label: 'container' },
      { source_labels: ['__meta_kubernetes_service_name'], target_label: 'job', replacement: '${1}' },
      { target_label: 'endpoint', replacement: endpoint.port },
      ...(endpoint.relabelings ?? []).map((r) => ({
        ...(r.action ? { action: r.action } : {}),
        ...(r.sourceLabels ? { source_labels: r.sourceLabels } : {}),
        ...(r.targetLabel ? { target_label: r.targetLabel } : {}),
        ...(r.regex ? { regex: r.regex } : {}),
        ...(r.replacement ? { replacement: r.replacement } : {}),
      })),
    ],
  }));
}
