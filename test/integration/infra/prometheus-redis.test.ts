// A real Prometheus scrapes the redis_exporter sidecars of a real RedisCluster's pods (the local
// kubelet runs them) the way the ServiceMonitor `redis-clusters` says (port metrics, the
// instance label as redis_cluster), with the rules of the PrometheusRule loaded: every pod's
// exporter answers with redis_up 1 and redis_cluster_state 1, labelled as the Redis alerts
// group them; frozen pods (SIGSTOP: no scrape answers, Redis stops answering its peers) put
// RedisClusterDown pending for each (its `up == 0` form), and RedisClusterStateFail pending from
// the cluster_state:fail of the pod left in the minority. Targets are static (written from the pods'
// IPs): the local environment has no prometheus-operator to read the ServiceMonitor.
import { expect } from 'chai';
import { EXPORTER_PORT } from '../../../shared/core/resources/statefulset.ts';
import type { ClusterView, PodInfo } from '../../e2e/observe.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';
import { monitoringObjects, startPrometheus, type RunningPrometheus } from '../../support/prometheus.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { waitFor } from '../../support/wait-for.ts';
import { exporterCluster, stopExporterCluster, type Started } from './exporter-cluster.ts';

const NAME = 'watched';

describe('infra/monitoring: a real Prometheus scrapes the exporters of a RedisCluster', function () {
  this.timeout(600_000);
  let env: LocalEnvironment;
  let prometheus: RunningPrometheus | undefined;
  let view: ClusterView;
  let pods: PodInfo[];
  let ns: string;
  let frozen: string[] = [];
  const started: Started = {};

  before(async function () {
    requireCommand('prometheus');
    env = await localEnvironment();
    view = await exporterCluster(env, 'prometheus-redis', NAME, started);
    ns = view.namespace;
    pods = await view.pods();
    const monitor = (await monitoringObjects()).monitor('redis-clusters');
    const endpoint = monitor.spec.endpoints.find((e) => e.port === 'metrics')!;
    // What the Prometheus Operator makes of the ServiceMonitor: one target per endpoint of the
    // nodes Service (its pods' metrics port), with the Service's instance label as redis_cluster.
    const service = `${NAME}-nodes`;
    prometheus = await startPrometheus([
      {
        job_name: `serviceMonitor/${monitor.metadata.namespace}/${monitor.metadata.name}/0`,
        metrics_path: endpoint.path ?? '/metrics',
        honor_labels: false,
        static_configs: pods.map((p) => ({
          targets: [`${p.ip}:${EXPORTER_PORT}`],
          labels: { namespace: ns, pod: p.name, service, job: service, redis_cluster: NAME },
        })),
      },
    ]);
  });
  after(async function () {
    this.timeout(240_000);
    for (const name of frozen) await env.kubelet.thawPod(ns, name).catch(() => {});
    await prometheus?.stop();
    await stopExporterCluster(env, started);
  });

  it("scrapes every pod's exporter: redis_up 1 and redis_cluster_state 1, by namespace, pod and redis_cluster", async () => {
    const names = pods.map((p) => p.name).sort();
    const selector = `{namespace="${ns}",redis_cluster="${NAME}"}`;
    const everyPod = (values: Record<string, number>) =>
      Object.keys(values).sort().join() === names.join() && Object.values(values).every((v) => v === 1);
    const values = async (metric: string) => prometheus!.values(`${metric}${selector}`, 'pod');
    await waitFor(async () => everyPod(await values('redis_up')) || undefined, { what: 'redis_up 1 on every pod' });
    await waitFor(async () => everyPod(await values('redis_cluster_state')) || undefined, {
      what: 'redis_cluster_state 1 on every pod',
    });
    expect(await prometheus!.alerts('RedisClusterDown')).to.deep.equal([]);
    expect(await prometheus!.alerts('RedisClusterStateFail')).to.deep.equal([]);
  });

  // cluster-require-full-coverage is no (redis-conf.ts): one master down leaves cluster_state ok
  // on the others, so two of three are frozen, and the third, in the minority, says fail.
  it('puts RedisClusterDown pending for each frozen pod and RedisClusterStateFail pending from the pod left alone', async () => {
    frozen = pods.slice(0, 2).map((p) => p.name);
    for (const name of frozen) await env.kubelet.freezePod(ns, name);
    const down = await waitFor(
      async () => {
        const alerts = await prometheus!.alerts('RedisClusterDown');
        return alerts.length === frozen!.length ? alerts : undefined;
      },
      { what: 'RedisClusterDown pending for both frozen pods', timeout: 120_000, interval: 1_000 },
    );
    expect(down.map((a) => a.labels.pod).sort()).to.deep.equal([...frozen].sort());
    expect(down.every((a) => a.labels.namespace === ns && a.labels.redis_cluster === NAME)).to.equal(true);
    const stateFail = await waitFor(async () => (await prometheus!.alerts('RedisClusterStateFail'))[0], {
      what: 'RedisClusterStateFail pending (cluster-node-timeout 5 s)',
      timeout: 120_000,
      interval: 1_000,
    });
    expect(stateFail.labels).to.deep.include({ namespace: ns, redis_cluster: NAME });
    for (const name of frozen) await env.kubelet.thawPod(ns, name);
    frozen = [];
    await waitFor(async () => (await prometheus!.alerts('RedisClusterDown')).length === 0 || undefined, {
      what: 'RedisClusterDown inactive once the pods are thawed',
      timeout: 120_000,
      interval: 1_000,
    });
  });
});
