import { expect } from 'chai';
import { ClusterHarness } from './cluster-harness.ts';
import { expectHealthy, failOverTo } from './cluster-checks.ts';
import { command, NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { keySlot } from '../../../shared/core/cluster/slots.ts';
import { myselfOf, type NodeView } from '../../../shared/core/cluster/topology.ts';

const KEYS = 40;
const key = (i: number) => `{fr}:${i}`;
const SLOT = keySlot(key(0));

// A slot half moved from S to T by hand (redis-cli's order: IMPORTING, MIGRATING, MIGRATE),
// then planned failovers of S's and/or T's replica: the promoted nodes carry no open-slot marker.
const cases: { name: string; failover: ('source' | 'target')[]; suite: number }[] = [
  { name: 'the source failed over', failover: ['source'], suite: 8 },
  { name: 'the target failed over', failover: ['target'], suite: 9 },
  { name: 'the source, then the target failed over', failover: ['source', 'target'], suite: 10 },
];

describe('cluster engine: resume a migration whose ends failed over', function () {
  this.timeout(420_000);
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  afterEach(async () => {
    await pool?.close();
    await harness?.stopAll();
  });

  for (const c of cases) {
    it(`finishes the slot on the target's shard with every key when ${c.name}`, async () => {
      harness = new ClusterHarness({ suite: c.suite, nodes: 3, zones: 3 });
      await harness.addPods(6);
      pool = new NodePool();
      const p = pool;
      const desired = harness.desired(3, 1);
      await converge(p, desired);
      const before = await observe(desired.pods, p);
      const masters = before.views.filter((v) => myselfOf(v).role === 'master');
      const source = masters.find((v) => myselfOf(v).slots.some((r) => r.start <= SLOT && SLOT <= r.end)) as NodeView;
      const target = masters.find((v) => v !== source) as NodeView;
      const replicaOf = (m: NodeView) => before.views.find((v) => myselfOf(v).masterId === m.id) as NodeView;
      for (let i = 0; i < KEYS; i++) await command(p, source.address, 'SET', ['SET', key(i), `v${i}`]);
      await command(p, target.address, 'IMPORTING', ['CLUSTER', 'SETSLOT', SLOT, 'IMPORTING', source.id]);
      await command(p, source.address, 'MIGRATING', ['CLUSTER', 'SETSLOT', SLOT, 'MIGRATING', target.id]);
      const half = Array.from({ length: KEYS / 2 }, (_, i) => key(i));
      await command(p, source.address, 'MIGRATE', [
        'MIGRATE',
        target.address.ip,
        target.address.port,
        '',
        0,
        5000,
        'KEYS',
        ...half,
      ]);
      for (const m of [source, target]) await command(p, m.address, 'WAIT', ['WAIT', 1, 5000]);
      // The old master, left with its open slot, may report fail: the engine's pass heals it.
      for (const end of c.failover)
        await failOverTo(p, desired, [replicaOf(end === 'source' ? source : target).pod], { clusterOk: false });

      await converge(p, desired, { deadlineMs: 120_000 });
      const after = await expectHealthy(p, desired);
      const owner = after.views.find((v) =>
        myselfOf(v).slots.some((r) => r.start <= SLOT && SLOT <= r.end),
      ) as NodeView;
      const targetShard = new Set([target.id, replicaOf(target).id]);
      expect(targetShard.has(owner.id), `slot ${SLOT} owned by ${owner.pod}, not the target's shard`).to.equal(true);
      for (let i = 0; i < KEYS; i++)
        expect(await command(p, owner.address, 'GET', ['GET', key(i)]), key(i)).to.equal(`v${i}`);
    });
  }
});
