// A real Prometheus (Debian's prometheus package) scrapes the operator's processes the way the
// ServiceMonitor `knredis` says (port http, its path), with the rules of the PrometheusRule
// loaded, and the operator's alerts go pending on what it scraped: KnredisReconcileErrors when
// every reconcile fails (here: a reconcile timeout of 1 ms), KnredisQueueBacklog when more than
// 100 keys wait (the worker stopped, events for 150 RedisClusters posted). promtool's unit tests
// (monitoring.test.ts) prove the rules' logic on made-up series; this proves the series they
// read exist, with the labels they group by. The Redis alerts, which read the redis_exporter
// sidecars' series, are prometheus-redis.test.ts's.
import { KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { CloudEvent, HTTP } from 'cloudevents';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOperatorStack, type OperatorStack } from '../../../infra/local/operator-stack.ts';
import { requestToken } from '../../../infra/local/sender-token.ts';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';
import { monitoringObjects, startPrometheus, type RunningPrometheus } from '../../support/prometheus.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { waitFor } from '../../support/wait-for.ts';

describe('infra/monitoring scraped by a real Prometheus', function () {
  this.timeout(600_000);
  let env: LocalEnvironment;
  let stack: OperatorStack;
  let prometheus: RunningPrometheus;
  let ns: string;

  before(async function () {
    requireCommand('prometheus');
    env = await localEnvironment();
    ns = `prometheus-${process.pid}`;
    await env.kubectl(['create', 'namespace', ns]);
    const dir = await mkdtemp(join(tmpdir(), 'knredis-prometheus-'));
    stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir: join(dir, 'stack'),
      webhookConfigurationName: `knredis-prometheus-${process.pid}`,
      // Every reconcile fails (times out), and is retried within a second.
      extraEnv: { RECONCILE_TIMEOUT_MS: '1', BACKOFF_BASE_MS: '200', BACKOFF_MAX_MS: '1000' },
    });
    const monitor = (await monitoringObjects()).monitor('knredis');
    const endpoint = monitor.spec.endpoints.find((e) => e.port === 'http')!;
    // What the Prometheus Operator makes of the ServiceMonitor, with the local processes as the
    // endpoints of the Services it selects (job = the Service's name).
    const target = (url: string, service: string) => ({
      targets: [new URL(url).host],
      labels: { namespace: monitor.metadata.namespace, service, job: service },
    });
    prometheus = await startPrometheus([
      {
        job_name: `serviceMonitor/${monitor.metadata.namespace}/${monitor.metadata.name}/0`,
        metrics_path: endpoint.path ?? '/metrics',
        honor_labels: false,
        static_configs: [
          target(stack.urls.metrics, 'knredis-dashboard'),
          ...stack.urls.workerMetrics.map((url) => target(url, 'knredis-reconcile-metrics')),
        ],
      },
    ]);
  });
  after(async function () {
    this.timeout(120_000);
    await prometheus?.stop();
    await env?.kubectl(['delete', 'rediscluster', '--all', '-n', ns, '--wait=false']).catch(() => {});
    await stack?.stop();
    await env?.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => {});
  });

  it('loads every rule of the PrometheusRule', async () => {
    const { groups } = await prometheus.query<{ groups: { rules: { name: string; health: string }[] }[] }>('rules');
    const rules = groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name)).to.include.members([
      'RedisClusterDown',
      'RedisClusterStateFail',
      'KnredisReconcileErrors',
      'KnredisQueueBacklog',
    ]);
    expect(rules.filter((r) => r.health === 'err')).to.deep.equal([]);
  });

  it('puts KnredisReconcileErrors pending, by namespace, when reconciles keep failing', async () => {
    await env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'failing', namespace: ns },
        spec: { masters: 3, replicasPerMaster: 0, storage: { reclaim: 'Delete' } },
      }),
    });
    const pending = await waitFor(
      async () => {
        const a = await prometheus.alert('KnredisReconcileErrors');
        return a && a.state !== 'inactive' ? a : undefined;
      },
      { what: 'KnredisReconcileErrors pending', timeout: 300_000, interval: 1_000 },
    );
    expect(pending.labels.namespace).to.equal('knredis-system');
  });

  it('puts KnredisQueueBacklog pending when more than 100 keys wait', async () => {
    await stack.stopWorker(0);
    // Posted as the event source posts: with its ServiceAccount's token for ingest's audience.
    const kc = new KubeConfig();
    kc.loadFromFile(env.kubeconfigPath);
    const token = await requestToken(kc);
    for (let i = 0; i < 150; i++) {
      const { data, ...attributes } = eventAttributes(
        { apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { namespace: ns, name: `w${i}` } },
        'update',
      );
      const message = HTTP.binary(
        new CloudEvent({ id: `w${i}`, source: 'https://127.0.0.1:6443', ...attributes, data }),
      );
      const res = await fetch(stack.urls.ingest, {
        method: 'POST',
        headers: { ...(message.headers as Record<string, string>), authorization: `Bearer ${token}` },
        body: String(message.body),
      });
      expect(res.status, await res.text()).to.equal(202);
    }
    await waitFor(async () => (await prometheus.alert('KnredisQueueBacklog'))?.state === 'pending', {
      what: 'KnredisQueueBacklog pending',
      timeout: 120_000,
      interval: 1_000,
    });
  });
});
