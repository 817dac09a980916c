// The alerts of infra/monitoring, run by Prometheus' own rule engine (`promtool test rules`):
// each alert fires on the series it is meant for, after its `for`, and stays quiet otherwise.
// And every operator process whose metrics an alert reads has a Service the ServiceMonitor
// scrapes.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { repoRoot } from '../../../infra/local/paths.ts';
import { localEnvironment } from '../../support/local-env.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { buildOverlay, type K8sObject } from './overlays.ts';

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleGroup {
  name: string;
  rules: Rule[];
}

const monitoring = join(repoRoot, 'infra/monitoring');
const groups = (
  parse(readFileSync(join(monitoring, 'prometheusrule.yaml'), 'utf8')) as { spec: { groups: RuleGroup[] } }
).spec.groups;
const alerts = new Map(groups.flatMap((g) => g.rules).flatMap((r) => (r.alert ? [[r.alert, r] as const] : [])));

/** The alert's annotations as Prometheus renders them for these labels. */
function rendered(alert: string, labels: Record<string, string>): Record<string, string> {
  const rule = alerts.get(alert)!;
  return Object.fromEntries(
    Object.entries(rule.annotations ?? {}).map(([k, v]) => [
      k,
      v.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, name: string) => labels[name] ?? ''),
    ]),
  );
}

interface Case {
  readonly what: string;
  readonly series: Record<string, string>;
  readonly alert: string;
  readonly at: string;
  /** Labels of each alert expected firing at `at` (beyond the rule's own); none: silent. */
  readonly firing: Record<string, string>[];
}

const pod = (name: string) =>
  `namespace="shop",pod="${name}",redis_cluster="cart",job="cart-nodes",service="cart-nodes",instance="10.0.0.1:9121"`;
const cases: Case[] = [
  {
    what: 'a pod that no longer answers its scrape for 5 minutes (up == 0)',
    series: { [`up{${pod('cart-1')}}`]: '1 1 0x10', [`up{${pod('cart-0')}}`]: '1x12' },
    alert: 'RedisClusterDown',
    at: '8m',
    firing: [{ namespace: 'shop', pod: 'cart-1', redis_cluster: 'cart' }],
  },
  {
    what: 'a Redis that does not answer its exporter (redis_up == 0)',
    series: { [`up{${pod('cart-2')}}`]: '1x12', [`redis_up{${pod('cart-2')}}`]: '1 0x10' },
    alert: 'RedisClusterDown',
    at: '7m',
    firing: [{ namespace: 'shop', pod: 'cart-2', redis_cluster: 'cart' }],
  },
  {
    what: 'a pod down for less than 5 minutes',
    series: { [`up{${pod('cart-1')}}`]: '1 1 0 0 0 1x6' },
    alert: 'RedisClusterDown',
    at: '5m',
    firing: [],
  },
  {
    what: "the operator's own targets (no redis_cluster label)",
    series: { 'up{namespace="knredis-system",pod="knredis-ingest-0",job="knredis-ingest"}': '0x12' },
    alert: 'RedisClusterDown',
    at: '10m',
    firing: [],
  },
  {
    what: 'nodes reporting cluster_state:fail for 2 minutes',
    series: { [`redis_cluster_state{${pod('cart-0')}}`]: '1 0x6' },
    alert: 'RedisClusterStateFail',
    at: '5m',
    firing: [{ namespace: 'shop', redis_cluster: 'cart' }],
  },
  {
    what: 'a cluster whose state is ok',
    series: { [`redis_cluster_state{${pod('cart-0')}}`]: '1x10' },
    alert: 'RedisClusterStateFail',
    at: '8m',
    firing: [],
  },
  {
    what: 'reconciles failing 12 times a minute for 20 minutes',
    series: {
      'controller_runtime_reconcile_errors_total{namespace="knredis-system",controller="rediscluster"}': '0+12x40',
    },
    alert: 'KnredisReconcileErrors',
    at: '35m',
    firing: [{ namespace: 'knredis-system' }],
  },
  {
    what: 'a reconcile failing once a minute',
    series: {
      'controller_runtime_reconcile_errors_total{namespace="knredis-system",controller="rediscluster"}': '0+1x40',
    },
    alert: 'KnredisReconcileErrors',
    at: '35m',
    firing: [],
  },
  {
    what: 'more than 100 keys waiting for 15 minutes',
    series: { 'workqueue_depth{name="reconcile",namespace="knredis-system"}': '150x20' },
    alert: 'KnredisQueueBacklog',
    at: '18m',
    firing: [{}],
  },
  {
    what: 'a queue that drains',
    series: { 'workqueue_depth{name="reconcile",namespace="knredis-system"}': '150x5 20x15' },
    alert: 'KnredisQueueBacklog',
    at: '18m',
    firing: [],
  },
];

describe('infra/monitoring', function () {
  this.timeout(900_000);
  // Debian's prometheus package (npm test's set-up installs it; a missing one fails the run)
  const promtool = 'promtool';
  let dir: string;

  before(function () {
    requireCommand(promtool);
    dir = mkdtempSync(join(tmpdir(), 'knredis-promtool-'));
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has rules Prometheus accepts', () => {
    execFileSync(promtool, ['check', 'rules', join(dir, 'rules.yaml')], { encoding: 'utf8' });
  });

  it('tests every alert, firing and silent', () => {
    for (const alert of alerts.keys()) {
      expect(
        cases.some((c) => c.alert === alert && c.firing.length > 0),
        `${alert} fires in a case`,
      ).to.equal(true);
      expect(
        cases.some((c) => c.alert === alert && c.firing.length === 0),
        `${alert} stays silent in a case`,
      ).to.equal(true);
    }
  });

  for (const c of cases) {
    it(`${c.firing.length > 0 ? 'fires' : 'does not fire'} ${c.alert} for ${c.what}`, () => {
      const rule = alerts.get(c.alert)!;
      const tests = {
        rule_files: ['rules.yaml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: Object.entries(c.series).map(([series, values]) => ({ series, values })),
            alert_rule_test: [
              {
                eval_time: c.at,
                alertname: c.alert,
                exp_alerts: c.firing.map((labels) => ({
                  exp_labels: { ...rule.labels, ...labels },
                  exp_annotations: rendered(c.alert, labels),
                })),
              },
            ],
          },
        ],
      };
      writeFileSync(join(dir, 'test.yaml'), stringify(tests));
      try {
        execFileSync(promtool, ['test', 'rules', join(dir, 'test.yaml')], { encoding: 'utf8', stdio: 'pipe' });
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string };
        throw new Error(`promtool test rules failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: error });
      }
    });
  }

  it('scrapes every operator process an alert reads: each has a Service the ServiceMonitor selects', async () => {
    const env = await localEnvironment();
    const objects = (await buildOverlay(env.kubectlPath, 'kubernetes')).objects;
    const monitor = parseAllDocuments(readFileSync(join(monitoring, 'servicemonitor.yaml'), 'utf8'))
      .map((d) => d.toJSON() as K8sObject & { spec: { selector: { matchLabels: Record<string, string> } } })
      .find((o) => o.metadata.name === 'knredis')!;
    const matches = (labels: Record<string, string> | undefined, selector: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels?.[k] === v);
    const scraped = objects.filter(
      (o) =>
        o.kind === 'Service' &&
        matches(o.metadata.labels, monitor.spec.selector.matchLabels) &&
        (o.spec as { ports: { name: string }[] }).ports.some((p) => p.name === 'http'),
    );
    // the operator's alerts read the worker's controller_runtime_reconcile_* and the
    // dashboard's workqueue_depth
    for (const name of ['knredis-reconcile', 'knredis-dashboard']) {
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!;
      const podLabels = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template
        .metadata.labels;
      const service = scraped.find((s) =>
        matches(podLabels, (s.spec as { selector: Record<string, string> }).selector),
      );
      expect(service, `a scraped Service in front of ${deployment.metadata.name}`).to.not.equal(undefined);
    }
  });
});
