import { expect } from 'chai';
import type { V1Pod } from '@kubernetes/client-node';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, type Driver } from './harness.ts';

// spec.nodeSelector, tolerations and affinity reach the pods, and the real scheduler honours
// them: the pods wait Pending while no node qualifies and land on the one that does.
describe('a RedisCluster with nodeSelector, tolerations and affinity', function () {
  this.timeout(300_000);
  let api: InstalledApi;
  let drive: Driver;
  let node: string;
  const ns = `rc-scheduling-${process.pid}`;
  const label = `knredis.test/pool-${process.pid}`;
  const taint = `knredis.test/dedicated-${process.pid}`;
  const spec = {
    masters: 3,
    replicasPerMaster: 0,
    nodeSelector: { [label]: 'redis' },
    tolerations: [{ key: taint, operator: 'Equal', value: 'redis', effect: 'NoSchedule' }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }],
        },
      },
    },
  };
  const pods = async () =>
    (JSON.parse(await api.env.kubectl(['get', 'pods', '-n', ns, '-o', 'json'])) as { items: V1Pod[] }).items;

  before(async () => {
    api = await installApi(`knredis-scheduling-${process.pid}`);
    drive = driver(api);
    node = api.env.nodes[1] ?? api.env.nodes[0] ?? '';
    expect(node, 'the local environment has nodes').to.not.equal('');
    await api.namespace(ns);
    // The only node with the label is tainted: the pods need the toleration to go there.
    await api.env.kubectl(['taint', 'node', node, `${taint}=redis:NoSchedule`]);
  });
  after(async () => {
    await drive?.remove(ns, 'placed').catch(() => undefined);
    await api?.env.kubectl(['label', 'node', node, `${label}-`]).catch(() => undefined);
    await api?.env.kubectl(['taint', 'node', node, `${taint}-`]).catch(() => undefined);
    await api?.stop();
  });

  it('keeps its pods Pending while no node has the label, each carrying the spec', async () => {
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'placed', namespace: ns },
        spec,
      }),
    });
    const unschedulable = await api.env.waitFor(
      async () => {
        await drive.once(`${ns}/placed`).catch(() => undefined);
        const all = await pods();
        const waiting = all.filter((p) =>
          p.status?.conditions?.some(
            (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
          ),
        );
        return all.length === 3 && waiting.length === 3 ? all : undefined;
      },
      { what: '3 pods the scheduler cannot place', timeout: 90_000, interval: 500 },
    );
    for (const pod of unschedulable) {
      expect(pod.spec?.nodeName, pod.metadata?.name).to.equal(undefined);
      expect(pod.spec?.nodeSelector).to.deep.equal(spec.nodeSelector);
      expect(pod.spec?.tolerations).to.deep.include(spec.tolerations[0]);
      expect(pod.spec?.affinity?.nodeAffinity).to.deep.equal(spec.affinity.nodeAffinity);
      // The operator's spread stays beside the user's affinity.
      expect(pod.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution).to.have.length(2);
    }
  });

  it('runs them on the labelled, tainted node once it has the label', async () => {
    await api.env.kubectl(['label', 'node', node, `${label}=redis`]);
    const placed = await api.env.waitFor(
      async () => {
        const all = await pods();
        return all.length === 3 && all.every((p) => p.status?.phase === 'Running') ? all : undefined;
      },
      { what: '3 pods Running', timeout: 120_000, interval: 500 },
    );
    expect(placed.map((p) => p.spec?.nodeName)).to.deep.equal([node, node, node]);
  });
});
