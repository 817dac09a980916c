import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { ClusterHarness } from './cluster-harness.ts';
import { command, NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { applyStep } from '../../../shared/io/redis/apply.ts';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import { keySlot } from '../../../shared/core/cluster/slots.ts';
import { myselfOf, type NodeView } from '../../../shared/core/cluster/topology.ts';
import type { Step } from '../../../shared/core/cluster/steps.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { waitFor } from '../../support/wait-for.ts';

const owns = (v: NodeView, slot: number) => myselfOf(v).slots.some((r) => r.start <= slot && slot <= r.end);

describe('cluster engine: the operator on the minority side of a partition', function () {
  this.timeout(180_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  const rules: string[][] = [];
  afterEach(async () => {
    for (const r of rules.splice(0)) execFileSync('iptables', ['-D', 'INPUT', ...r]);
    await harness?.stopAll();
    await pool?.close();
  });

  it('fails over nothing from its partial view, and the writes the majority side acknowledged survive the heal', async () => {
    requireCommand('iptables');
    harness = new ClusterHarness({ suite: 14, nodes: 3, zones: 3 });
    await harness.addPods(6);
    pool = new NodePool({ commandTimeoutMs: 1_000, connectTimeoutMs: 1_000 });
    const p = pool;
    const desired = harness.desired(3, 1);
    await converge(p, desired);
    const t = await observe(desired.pods, p);
    const key = 'partition:k';
    const slot = keySlot(key);
    const masters = t.views.filter((v) => myselfOf(v).role === 'master' && myselfOf(v).slots.length > 0);
    const b = masters.find((v) => owns(v, slot)) as NodeView;
    const a = masters.find((v) => v !== b) as NodeView;
    const replicaOf = (m: NodeView) => t.views.find((v) => myselfOf(v).masterId === m.id) as NodeView;
    // Minority: master A and the replicas of the two other masters. Majority: those two masters and A's replica.
    const minority = [a, ...masters.filter((m) => m !== a).map(replicaOf)];
    const majority = t.views.filter((v) => !minority.includes(v));
    const drop = (from: string, to: string) => {
      const rule = ['-s', from, '-d', to, '-j', 'DROP'];
      execFileSync('iptables', ['-I', 'INPUT', ...rule]);
      rules.push(rule);
    };
    for (const x of minority)
      for (const y of majority) {
        drop(x.address.ip, y.address.ip);
        drop(y.address.ip, x.address.ip);
      }
    // B acknowledges a write its replica (on the minority side) never receives.
    await command(p, b.address, 'SET', ['SET', key, 'acknowledged']);
    // The operator now sees only the minority side.
    for (const y of majority) drop('127.0.0.1', y.address.ip);
    await waitFor(
      async () =>
        (await observe(desired.pods, p)).views
          .find((v) => v.id === a.id)
          ?.entries.some((e) => e.id === b.id && e.failing !== 'none'),
      { what: `${a.pod} to mark ${b.pod} failing` },
    );

    const planned: Step[] = [];
    for (let pass = 0; pass < 6; pass++) {
      const plan = planCluster(desired, await observe(desired.pods, p), Date.now(), { autoFailoverGraceMs: 0 });
      planned.push(...plan.steps);
      for (const step of plan.steps) await applyStep(p, step, { failoverTimeoutMs: 3_000 }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(planned.filter((s) => s.kind === 'failover')).to.deep.equal([]);

    for (const r of rules.splice(0)) execFileSync('iptables', ['-D', 'INPUT', ...r]);
    await waitFor(
      async () => {
        const healed = await observe(desired.pods, p);
        const owner = healed.views.find((v) => owns(v, slot) && myselfOf(v).role === 'master');
        return (
          healed.views.every((v) => v.info.state === 'ok') &&
          owner &&
          (await command(p, owner.address, 'GET', ['GET', key]))
        );
      },
      { what: 'the healed cluster to serve the key' },
    ).then((value) => expect(value).to.equal('acknowledged'));
  });
});
