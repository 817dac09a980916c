import { expect } from 'chai';
import { planCluster } from '../../../shared/core/cluster/plan-cluster.ts';
import { isDisruptive, type Step } from '../../../shared/core/cluster/steps.ts';
import { isSafeToRestart } from '../../../shared/core/cluster/restart-safety.ts';
import { parseClusterNodes } from '../../../shared/core/cluster/parse-cluster-nodes.ts';
import { aDesired, aTopology, idOf, pods, threeByOne } from './builders.ts';

const NOW = 1_000_000;
const kinds = (steps: readonly Step[]) => steps.map((s) => s.kind);
/** Slot 100 half moved from redis-0 to redis-1: MIGRATING on one, IMPORTING on the other. */
const interruptedMigration = (all: ReturnType<typeof pods>) =>
  aTopology(
    all,
    threeByOne.map((s) =>
      s.pod === 0
        ? { ...s, slots: `0-5461 [100->-${idOf(1)}]` }
        : s.pod === 1
          ? { ...s, slots: `5462-10922 [100-<-${idOf(0)}]` }
          : s,
    ),
  );

describe('planCluster', () => {
  it('bootstraps with distinct epochs, even ranges covering 16384 slots, then MEET, when every pod is fresh', () => {
    const all = pods(6);
    const fresh = aTopology(
      all,
      all.map((_, i) => ({ pod: i })),
      { keys: 0 },
    );
    // each fresh node knows only itself
    const topology = {
      ...fresh,
      views: fresh.views.map((v) => ({
        ...v,
        entries: v.entries.filter((e) => e.myself).map((e) => ({ ...e, slots: [], configEpoch: 0 })),
        info: { ...v.info, myEpoch: 0 },
      })),
    };
    const plan = planCluster(aDesired(3, 1, all), topology, NOW);
    const epochs = plan.steps.flatMap((s) => (s.kind === 'setConfigEpoch' ? [s.epoch] : []));
    expect(new Set(epochs).size).to.equal(3);
    const ranges = plan.steps.flatMap((s) => (s.kind === 'addSlots' ? s.ranges : []));
    expect(ranges.reduce((n, r) => n + r.end - r.start + 1, 0)).to.equal(16384);
    expect(kinds(plan.steps).filter((k) => k === 'meet')).to.have.length(5);
    expect(kinds(plan.steps).indexOf('meet')).to.be.greaterThan(kinds(plan.steps).lastIndexOf('addSlots'));
  });

  it('converges with no step when the cluster is 3x1 and healthy', () => {
    const all = pods(6);
    const plan = planCluster(aDesired(3, 1, all), aTopology(all, threeByOne), NOW);
    expect(plan.steps).to.deep.equal([]);
    expect(plan.converged).to.equal(true);
  });

  it('plans one migrate step with three independent pairs when scaling 3 -> 6 masters', () => {
    const all = pods(9);
    const specs = [...threeByOne, { pod: 6 }, { pod: 7 }, { pod: 8 }];
    const plan = planCluster(aDesired(6, 0, all), aTopology(all, specs), NOW);
    expect(kinds(plan.steps)).to.deep.equal(['migrate']);
    const step = plan.steps[0];
    if (step?.kind !== 'migrate') throw new Error('expected migrate');
    expect(step.moves).to.have.length(3);
    expect(new Set(step.moves.map((m) => m.source.id)).size).to.equal(3);
    expect(new Set(step.moves.map((m) => m.target.id)).size).to.equal(3);
    expect(step.moves.reduce((n, m) => n + m.slots.length, 0)).to.be.within(8190, 8193);
    expect(plan.progress.message).to.match(/migrating slots: \d+ to move/);
  });

  it('drains masters being removed, then forgets them on every remaining node', () => {
    const all = pods(7);
    const removing = all.map((p, i) => (i === 6 ? { ...p, removing: true } : p));
    const draining = planCluster(
      aDesired(3, 1, removing),
      aTopology(all, [
        ...threeByOne.map((s) => (s.pod === 2 ? { ...s, slots: '10923-16000' } : s)),
        { pod: 6, slots: '16001-16383' },
      ]),
      NOW,
    );
    expect(kinds(draining.steps)).to.deep.equal(['migrate']);
    const forgetting = planCluster(aDesired(3, 1, removing), aTopology(all, [...threeByOne, { pod: 6 }]), NOW);
    expect(kinds(forgetting.steps)).to.deep.equal(['forget']);
    const forget = forgetting.steps[0];
    if (forget?.kind !== 'forget') throw new Error('expected forget');
    expect(forget.id).to.equal(idOf(6));
    expect(forget.on).to.have.length(6);
  });

  it('finishes an interrupted migration forward when a slot is migrating and importing', () => {
    const all = pods(6);
    const topology = interruptedMigration(all);
    const plan = planCluster(aDesired(3, 1, all), topology, NOW);
    expect(kinds(plan.steps)).to.deep.equal(['migrate']);
    expect(plan.progress.phase).to.equal('resuming');
  });

  it('closes an import that never started when the importer holds no key of the slot', () => {
    const all = pods(6);
    const topology = aTopology(
      all,
      threeByOne.map((s) => (s.pod === 1 ? { ...s, slots: `5462-10922 [100-<-${idOf(0)}]` } : s)),
      { keysInSlot: { 100: 0 } },
    );
    const plan = planCluster(aDesired(3, 1, all), topology, NOW);
    expect(kinds(plan.steps)).to.deep.equal(['closeSlots']);
  });

  it('reports a lost shard and touches none of its slots when a master without replica fails', () => {
    const all = pods(3);
    const topology = aTopology(
      all,
      [
        { pod: 0, slots: '0-5461' },
        { pod: 1, slots: '5462-10922' },
        { pod: 2, slots: '10923-16383', fail: true },
      ],
      { unreachable: [2] },
    );
    const plan = planCluster(aDesired(3, 0, all), topology, NOW);
    expect(plan.steps).to.deep.equal([]);
    expect(plan.problems.map((p) => p.code)).to.include('ShardLost');
    expect(plan.converged).to.equal(false);
  });

  it('waits for Redis to fail over, then forces it on the replica after the grace period', () => {
    const all = pods(6);
    const specs = threeByOne.map((s) => (s.pod === 2 ? { ...s, fail: true } : s));
    const waiting = planCluster(aDesired(3, 1, all), aTopology(all, specs, { unreachable: [2] }), NOW, {
      autoFailoverGraceMs: 120_000,
    });
    expect(waiting.steps).to.deep.equal([]);
    expect(waiting.problems.map((p) => p.code)).to.include('ShardDown');
    const forcing = planCluster(aDesired(3, 1, all), aTopology(all, specs, { unreachable: [2] }), NOW, {
      autoFailoverGraceMs: 10_000,
    });
    expect(forcing.steps).to.have.length(1);
    expect(forcing.steps[0]).to.deep.include({ kind: 'failover', mode: 'force' });
  });

  it('forgets a failed id whose address now answers with another id', () => {
    const all = pods(6);
    const ghost = `${'f'.repeat(40)} ${all[4]?.address.ip}:6379@16379 slave,fail ${idOf(2)} 0 ${NOW - 60_000} 3 disconnected`;
    const specs = threeByOne.map((s) => (s.pod === 4 ? { pod: 4 } : s));
    const plan = planCluster(
      aDesired(3, 1, all),
      aTopology(all, specs, { lines: (v) => (v === 4 ? [] : [ghost]) }),
      NOW,
    );
    expect(plan.steps.some((s) => s.kind === 'forget' && s.id === 'f'.repeat(40))).to.equal(true);
  });

  it('says which view disagrees while it waits for the nodes to agree', () => {
    const all = pods(6);
    const wait = (specs: typeof threeByOne, state: (pod: string) => 'ok' | 'fail' = () => 'ok') => {
      const topology = aTopology(all, specs);
      const views = topology.views.map((v) => ({ ...v, info: { ...v.info, state: state(v.pod) } }));
      const plan = planCluster(aDesired(3, 1, all), { ...topology, views }, NOW);
      expect(plan.steps).to.deep.equal([]);
      expect(plan.progress.phase).to.equal('waiting');
      return plan.progress.message;
    };
    expect(wait(threeByOne.map((s) => (s.pod === 5 ? { ...s, knows: [0, 1, 2, 3] } : s)))).to.equal(
      'waiting for the nodes to agree on the slot layout: redis-5 does not know aaaaaaaa, which redis-0 lists',
    );
    // redis-2 claims slot 16383 with a higher epoch than redis-4's view still gives redis-1
    const late = aTopology(all, threeByOne);
    const stale = {
      ...late,
      views: late.views.map((v) =>
        v.pod !== 'redis-4'
          ? v
          : {
              ...v,
              entries: v.entries.map((e) =>
                e.id === idOf(1)
                  ? { ...e, slots: [...e.slots, { start: 16383, end: 16383 }] }
                  : e.id === idOf(2)
                    ? { ...e, slots: [{ start: 10923, end: 16382 }] }
                    : e,
              ),
            },
      ),
    };
    expect(planCluster(aDesired(3, 1, all), stale, NOW).progress.message).to.equal(
      'waiting for the nodes to agree on the slot layout: redis-4 places slot 16383 at aaaaaaaa, the cluster at aaaaaaaa',
    );
    expect(wait(threeByOne, (pod) => (pod === 'redis-3' ? 'fail' : 'ok'))).to.equal(
      'waiting for the nodes to agree on the slot layout: redis-3 reports cluster_state:fail',
    );
  });

  it('re-MEETs a node that some view still lists at its old address', () => {
    const all = pods(6);
    const topology = aTopology(all, threeByOne);
    const moved = {
      ...topology,
      views: topology.views.map((v) =>
        v.pod === 'redis-0'
          ? v
          : {
              ...v,
              entries: parseClusterNodes(v.entries.map(() => '').join('')).concat(
                v.entries.map((e) => (e.id === idOf(3) ? { ...e, address: { ip: '127.9.9.9', port: 6379 } } : e)),
              ),
            },
      ),
    };
    const plan = planCluster(aDesired(3, 1, all), moved, NOW);
    expect(plan.steps.some((s) => s.kind === 'meet' && s.to.ip === all[3]?.address.ip)).to.equal(true);
  });

  it('re-MEETs a moved node that still believes it is at its old address, also when it is the anchor', () => {
    const all = pods(6);
    const topology = aTopology(all, threeByOne, {
      // redis-4 knows one entry more than the others (a handshake still under way): the anchor.
      lines: (v) => (v === 4 ? [`${'e'.repeat(40)} 127.8.8.8:6379@16379 handshake - 0 0 0 disconnected`] : []),
    });
    const stuck = {
      ...topology,
      views: topology.views.map((v) =>
        v.pod === 'redis-4'
          ? { ...v, entries: v.entries.map((e) => (e.myself ? { ...e, address: { ip: '127.9.9.9', port: 6379 } } : e)) }
          : v,
      ),
    };
    const plan = planCluster(aDesired(3, 1, all), stuck, NOW);
    expect(plan.steps.filter((s) => s.kind === 'meet' && s.to.ip === all[4]?.address.ip)).to.have.length(1);
    expect(plan.converged).to.equal(false);
  });

  it('never holds more than one disruptive step, whatever the state', () => {
    const all = pods(9);
    const cases = [aTopology(all, [...threeByOne, { pod: 6 }, { pod: 7 }, { pod: 8 }]), aTopology(all, threeByOne)];
    for (const t of cases)
      expect(planCluster(aDesired(6, 1, all), t, NOW).steps.filter(isDisruptive).length).to.be.at.most(1);
  });

  it('attaches replicas on other nodes than their masters when pods are fresh', () => {
    const all = pods(6);
    const specs = [
      { pod: 0, slots: '0-5461' },
      { pod: 1, slots: '5462-10922' },
      { pod: 2, slots: '10923-16383' },
      { pod: 3 },
      { pod: 4 },
      { pod: 5 },
    ];
    const plan = planCluster(aDesired(3, 1, all), aTopology(all, specs), NOW);
    expect(kinds(plan.steps)).to.deep.equal(['replicate', 'replicate', 'replicate']);
    for (const s of plan.steps) {
      if (s.kind !== 'replicate') continue;
      const replica = all.find((p) => p.name === s.node.pod);
      const master = all.find((p) => p.name === s.master.pod);
      expect(replica?.nodeName).not.to.equal(master?.nodeName);
    }
  });
});

describe('planCluster while slot moves are held (a backup in progress)', () => {
  const hold = { holdSlotMoves: 'backup nightly is reading the shards' };

  it('plans no migrate when scaling 3 -> 6 masters, and waits saying why', () => {
    const all = pods(9);
    const specs = [...threeByOne, { pod: 6 }, { pod: 7 }, { pod: 8 }];
    const plan = planCluster(aDesired(6, 0, all), aTopology(all, specs), NOW, hold);
    expect(plan.steps).to.deep.equal([]);
    expect(plan.converged).to.equal(false);
    expect(plan.progress).to.deep.include({
      phase: 'waiting',
      message: 'slot moves wait: backup nightly is reading the shards',
    });
  });

  it('leaves an interrupted migration open, and still closes an import that never started', () => {
    const all = pods(6);
    const migrating = interruptedMigration(all);
    const held = planCluster(aDesired(3, 1, all), migrating, NOW, hold);
    expect(held.steps).to.deep.equal([]);
    expect(held.converged).to.equal(false);
    expect(held.progress).to.deep.include({
      phase: 'waiting',
      message: 'slot moves wait: backup nightly is reading the shards',
    });
    const neverStarted = aTopology(
      all,
      threeByOne.map((s) => (s.pod === 1 ? { ...s, slots: `5462-10922 [100-<-${idOf(0)}]` } : s)),
      { keysInSlot: { 100: 0 } },
    );
    expect(kinds(planCluster(aDesired(3, 1, all), neverStarted, NOW, hold).steps)).to.deep.equal(['closeSlots']);
  });

  it('still heals: forces the failover of a failed master after the grace period', () => {
    const all = pods(6);
    const specs = threeByOne.map((s) => (s.pod === 2 ? { ...s, fail: true } : s));
    const plan = planCluster(aDesired(3, 1, all), aTopology(all, specs, { unreachable: [2] }), NOW, {
      ...hold,
      autoFailoverGraceMs: 10_000,
    });
    expect(plan.steps[0]).to.deep.include({ kind: 'failover', mode: 'force' });
  });

  it('converges as usual on a settled cluster: nothing is held when nothing would move', () => {
    const all = pods(6);
    const plan = planCluster(aDesired(3, 1, all), aTopology(all, threeByOne), NOW, hold);
    expect(plan.converged).to.equal(true);
  });
});

describe('isSafeToRestart', () => {
  it('says not yet, with a failover step, when a master with slots has a synced replica', () => {
    const all = pods(6);
    const answer = isSafeToRestart('redis-0', aDesired(3, 1, all), aTopology(all, threeByOne), NOW);
    expect(answer.safe).to.equal(false);
    if (answer.safe) return;
    expect(answer.failover).to.deep.include({ kind: 'failover', mode: 'default' });
    expect(answer.failover?.kind === 'failover' && answer.failover.replica.pod).to.equal('redis-5');
  });

  it('says safe when the pod is a replica', () => {
    const all = pods(6);
    expect(isSafeToRestart('redis-5', aDesired(3, 1, all), aTopology(all, threeByOne), NOW).safe).to.equal(true);
  });
});

describe('isSafeToRestart right after a failover', () => {
  it('says not yet, without a failover, while the master does not list its synced replica as its own', () => {
    const all = pods(6);
    const topology = aTopology(all, threeByOne);
    const stale = {
      ...topology,
      views: topology.views.map((v) =>
        v.pod !== 'redis-0'
          ? v
          : {
              ...v,
              entries: v.entries.map((e) => (e.id === idOf(5) ? { ...e, role: 'master' as const, masterId: null } : e)),
            },
      ),
    };
    const answer = isSafeToRestart('redis-0', aDesired(3, 1, all), stale, NOW);
    expect(answer).to.deep.include({ safe: false });
    expect(!answer.safe && answer.failover).to.equal(undefined);
  });
});
