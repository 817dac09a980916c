// A real Prometheus (Debian's prometheus package) for the tests of infra/monitoring: the rules
// of the PrometheusRule loaded, static scrape configs standing for what the Prometheus Operator
// makes of a ServiceMonitor (the local environment has no prometheus-operator), a 1 s interval.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { repoRoot } from '../../infra/local/paths.ts';
import { freeLoopbackPort, spawnStackProcess, type StackProcess } from '../../infra/local/stack-process.ts';
import { requireCommand } from './prerequisites.ts';
import { waitFor } from './wait-for.ts';

const monitoring = join(repoRoot, 'infra', 'monitoring');

export interface Monitor {
  metadata: { name: string; namespace: string };
  spec: { endpoints: { port: string; path?: string }[] };
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
  static_configs: StaticConfig[];
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
  /** The alert of that name (any labels), if pending or firing. */
  alert(name: string): Promise<Alert | undefined>;
  /** Every alert of that name. */
  alerts(name: string): Promise<Alert[]>;
  /** The value of each series an instant query returns, by the label `by`. */
  values(promql: string, by: string): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** Starts Prometheus with infra/monitoring's rules and waits until it scrapes every target up. */
export async function startPrometheus(scrapeConfigs: ScrapeConfig[]): Promise<RunningPrometheus> {
  requireCommand('prometheus');
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
    command: 'prometheus',
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
  const targets = scrapeConfigs.reduce((n, c) => n + c.static_configs.reduce((m, s) => m + s.targets.length, 0), 0);
  try {
    await waitFor(
      async () => {
        const { activeTargets } = await query<{ activeTargets: { health: string }[] }>('targets');
        return activeTargets.length === targets && activeTargets.every((t) => t.health === 'up')
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
