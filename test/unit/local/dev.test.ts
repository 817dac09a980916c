import { expect } from 'chai';
import { parseDevArgs, UsageError } from '../../../infra/local/dev-args.ts';
import { isReady, progressLine } from '../../../infra/local/dev-progress.ts';
import { devSummary, READY_BANNER } from '../../../infra/local/dev-summary.ts';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';

function aCluster(status?: RedisCluster['status'], generation = 1): RedisCluster {
  return {
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisCluster',
    metadata: { name: 'sample', namespace: 'default', generation },
    spec: { masters: 3, replicasPerMaster: 1 },
    ...(status ? { status } : {}),
  } as RedisCluster;
}
const condition = (type: string, status: 'True' | 'False', message: string, observedGeneration = 1) => ({
  type,
  status,
  reason: 'R',
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration,
});

describe('infra/local/dev-args', function () {
  it('uses the dev environment, 3 nodes and the v1beta1 sample when given nothing', function () {
    const o = parseDevArgs([], {});
    expect(o).to.include({ name: 'dev', nodes: 3, keep: false, namespace: 'default', help: false });
    expect(o.sample).to.match(/infra\/samples\/redis-cluster-v1beta1\.yaml$/);
  });
  it('takes the environment name from KNREDIS_DEV_ENV when --name is absent', function () {
    expect(parseDevArgs([], { KNREDIS_DEV_ENV: 'dev-e2e-1' }).name).to.equal('dev-e2e-1');
    expect(parseDevArgs(['--name', 'mine'], { KNREDIS_DEV_ENV: 'dev-e2e-1' }).name).to.equal('mine');
  });
  it('runs the operator as processes unless --in-cluster', function () {
    expect(parseDevArgs([], {}).inCluster).to.equal(false);
    expect(parseDevArgs(['--in-cluster'], {}).inCluster).to.equal(true);
  });
  it('applies no sample with --no-sample, and keeps the environment with --keep', function () {
    expect(parseDevArgs(['--no-sample', '--keep'], {})).to.include({ sample: undefined, keep: true });
  });
  const bad: [string, string[], RegExp][] = [
    ['an unknown flag', ['--frobnicate'], /frobnicate/],
    ['a node count out of range', ['--nodes', '0'], /--nodes/],
    ['a name with capitals', ['--name', 'Dev'], /invalid environment name/],
    ['both --sample and --no-sample', ['--sample', 'x.yaml', '--no-sample'], /exclude/],
    ['a bad namespace', ['--namespace', 'Not_Valid'], /namespace/],
    ['a non-positive ready timeout', ['--ready-timeout', '0'], /--ready-timeout/],
  ];
  for (const [what, argv, message] of bad) {
    it(`refuses ${what} with a UsageError`, function () {
      expect(() => parseDevArgs(argv, {})).to.throw(UsageError, message);
    });
  }
});

describe('infra/local/dev-progress', function () {
  it('shows phase, slots, ready nodes and the conditions that matter', function () {
    const line = progressLine(
      aCluster({
        phase: 'Creating',
        slotsCovered: 0,
        readyNodes: 2,
        conditions: [
          condition('Ready', 'False', '2/6 nodes ready'),
          condition('Progressing', 'True', 'waiting for pods: 2/6 ready'),
          condition('Degraded', 'False', 'fine'),
        ],
      }),
    );
    expect(line).to.equal(
      'phase Creating · slots 0/16384 · nodes ready 2/6 · Ready=False (2/6 nodes ready) · Progressing=True (waiting for pods: 2/6 ready)',
    );
  });
  it('says when the object or its status is not there yet', function () {
    expect(progressLine(undefined)).to.equal('not found yet');
    expect(progressLine(aCluster())).to.contain('waiting for the operator');
  });
  it('is Ready only when Ready is True for the current generation with every slot covered', function () {
    expect(isReady(aCluster({ slotsCovered: 16384, conditions: [condition('Ready', 'True', 'ok')] }))).to.equal(true);
    expect(isReady(aCluster({ slotsCovered: 16384, conditions: [condition('Ready', 'True', 'ok')] }, 2))).to.equal(
      false,
    );
    expect(isReady(aCluster({ slotsCovered: 16000, conditions: [condition('Ready', 'True', 'ok')] }))).to.equal(false);
    expect(isReady(aCluster({ slotsCovered: 16384, conditions: [condition('Ready', 'False', 'no')] }))).to.equal(false);
    expect(isReady(undefined)).to.equal(false);
  });
});

describe('infra/local/dev-summary', function () {
  const base = {
    envName: 'dev',
    kubeconfig: '/k/admin.kubeconfig',
    kubectl: '/b/kubectl',
    dashboard: 'http://127.0.0.1:1/admin/queues',
    dashboardToken: false,
    metrics: ['http://127.0.0.1:1/metrics'],
    logsDir: '/l',
    envLogsDir: '/e',
  };
  it('prints the dashboard, metrics, kubeconfig and commands that use them', function () {
    const text = devSummary({
      ...base,
      sample: { name: 'sample', namespace: 'default', secret: 'sample-auth' },
      keepsEnvironment: false,
    });
    expect(text)
      .to.contain(READY_BANNER)
      .and.contain('http://127.0.0.1:1/admin/queues')
      .and.contain('http://127.0.0.1:1/metrics');
    expect(text).to.contain('http://127.0.0.1:1/admin/clusters');
    expect(text).to.contain('KUBECONFIG=/k/admin.kubeconfig /b/kubectl get redisclusters');
    expect(text).to.contain('scale rediscluster sample --replicas=6');
    expect(text)
      .to.contain("get secret sample-auth -o jsonpath='{.data.password}' | base64 -d")
      .and.contain('redis-cli -c');
    expect(text).to.contain('stops the operator and the local environment');
    expect(text).to.contain('no token: DASHBOARD_AUTH=none');
  });
  it('in-cluster, says where the token and the logs are, never the token itself', function () {
    const text = devSummary({
      ...base,
      logsDir: undefined,
      dashboard: 'http://172.16.3.9:80/admin/queues',
      inCluster: { namespace: 'knredis-system', tokenSecret: 'knredis-dashboard' },
      keepsEnvironment: false,
    });
    expect(text)
      .to.contain('the operator in its namespace knredis-system')
      .and.contain('http://172.16.3.9:80/admin/queues');
    expect(text).to.contain(
      "/b/kubectl -n knredis-system get secret knredis-dashboard -o jsonpath='{.data.token}' | base64 -d",
    );
    expect(text).to.contain('-n knredis-system logs deploy/knredis-reconcile').and.not.contain('undefined');
    expect(text).to.contain("Ctrl-C stops the local environment 'dev' and the operator in it.");
    expect(devSummary({ ...base, inCluster: { namespace: 'n', tokenSecret: 's' }, keepsEnvironment: true })).to.contain(
      'keeps running, the operator in it',
    );
  });
  it('says the environment stays when dev does not own it, and mentions the token only when set', function () {
    const text = devSummary({ ...base, keepsEnvironment: true, dashboardToken: true });
    expect(text).to.contain('keeps running').and.contain('$DASHBOARD_TOKEN').and.not.contain('redis-cli');
  });
});
