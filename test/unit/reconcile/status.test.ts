import { expect } from 'chai';
import type { Condition } from '../../../shared/core/api/k8s-types.ts';
import type { RedisClusterStatus } from '../../../shared/core/api/v1beta1.ts';
import {
  failedStatus,
  pausedStatus,
  podsActivityType,
  shardsOf,
  type StatusInput,
} from '../../../shared/core/reconcile/status.ts';
import { aTopology, pods, threeByOne, type NodeSpec } from '../cluster/builders.ts';
import { aPlan, aStatus, somePods, T0, T1, wasReady } from './builders.ts';

const status = aStatus;
const condition = (s: RedisClusterStatus, type: string) => s.conditions?.find((c) => c.type === type) as Condition;
/** What a paused pass passes: it observes no Redis and plans nothing. */
const paused: Partial<StatusInput> = { paused: true, topology: undefined, plan: undefined };

describe('status', () => {
  describe('Ready', () => {
    it('is True, with the counts, when converged, every pod Ready and 16384 slots covered', () => {
      const s = status();
      expect(condition(s, 'Ready')).to.include({
        status: 'True',
        reason: 'ClusterReady',
        message: 'all 6 nodes ready, 16384 slots covered',
        observedGeneration: 3,
      });
      expect(s).to.include({
        slotsCovered: 16384,
        readyNodes: 6,
        readyMasters: 3,
        readyReplicas: 3,
        observedGeneration: 3,
        selector: 'app.kubernetes.io/name=redis-cluster,app.kubernetes.io/instance=redis',
      });
    });

    const notReady: [string, Partial<StatusInput>, string][] = [
      [
        'the plan has not converged',
        { plan: aPlan({ phase: 'replicating', message: '1 replica(s) still syncing' }) },
        'OperationInProgress',
      ],
      ['a pod is not Ready', { pods: somePods(6, (i) => ({ ready: i !== 4 })) }, 'NotReady'],
      ['a pod is terminating', { pods: somePods(6, (i) => ({ terminating: i === 4 })) }, 'NotReady'],
      ['a pod is missing', { pods: somePods(5) }, 'NotReady'],
      [
        'a shard is gone, its slots uncovered',
        {
          topology: aTopology(
            pods(6),
            threeByOne.filter((n) => n.pod !== 2 && n.pod !== 4),
          ),
        },
        'NotReady',
      ],
      [
        'a rolling update is in flight',
        { activity: { type: 'RollingUpdate', message: 'rolling update: 2 pod(s) to restart' } },
        'OperationInProgress',
      ],
      ['nothing was observed', { topology: undefined, plan: undefined }, 'NotReady'],
      ['it is paused', paused, 'Paused'],
    ];
    for (const [what, fields, reason] of notReady) {
      it(`is False (${reason}) when ${what}`, () => {
        expect(condition(status(fields), 'Ready')).to.include({ status: 'False', reason });
      });
    }

    it('says how far it is when not Ready', () => {
      expect(condition(status({ pods: somePods(6, (i) => ({ ready: i !== 4 })) }), 'Ready').message).to.equal(
        '5/6 nodes ready, 16384/16384 slots covered: cluster is ready',
      );
    });
  });

  describe('Progressing', () => {
    const table: [string, Partial<StatusInput>, string, string][] = [
      [
        'scale-out moves slots',
        { plan: aPlan({ phase: 'migrating', slotsToMove: 5461 }) },
        'ScalingOut',
        'migrating slots: 0/5461',
      ],
      [
        'scale-in drains nodes',
        { plan: aPlan({ phase: 'removing', slotsToMove: 100 }) },
        'ScalingIn',
        'migrating slots: 0/100',
      ],
      [
        'replicas are attached',
        { plan: aPlan({ phase: 'replicating', message: '2 replica(s) still syncing' }) },
        'AddingReplicas',
        '2 replica(s) still syncing',
      ],
      [
        'the cluster heals',
        { plan: aPlan({ phase: 'healing', message: 'failing over shard 1' }) },
        'Healing',
        'failing over shard 1',
      ],
      [
        'a rolling update runs',
        { activity: { type: 'RollingUpdate', message: 'rolling update: 3 pod(s) to restart' } },
        'RollingUpdate',
        'rolling update: 3 pod(s) to restart',
      ],
      [
        'the first layout is made',
        { previous: undefined, plan: aPlan({ phase: 'bootstrapping', message: 'assigning slots' }) },
        'Creating',
        'assigning slots',
      ],
    ];
    for (const [what, fields, reason, message] of table) {
      it(`is True (${reason}) with the operation's message when ${what}`, () => {
        const s = status(fields);
        expect(condition(s, 'Progressing')).to.include({ status: 'True', reason, message });
        expect(s.operation?.progress).to.equal(message);
        expect(s.operation?.startedAt).to.equal(T1);
      });
    }

    it('is False (Idle) with no operation when converged', () => {
      const s = status();
      expect(condition(s, 'Progressing')).to.include({ status: 'False', reason: 'Idle' });
      expect(s).to.not.have.property('operation');
    });

    it('is False (Paused) when paused', () => {
      const s = status(paused);
      expect(condition(s, 'Progressing')).to.include({
        status: 'False',
        reason: 'Paused',
        message: 'reconciliation is paused (spec.paused)',
      });
      expect(s).to.not.have.property('operation');
    });

    it('keeps the start of an operation that goes on, and restarts it for another one', () => {
      const previous: RedisClusterStatus = {
        ...wasReady,
        operation: { type: 'ScaleOut', progress: 'migrating slots: 100/5461', startedAt: T0 },
      };
      expect(
        status({ previous, plan: aPlan({ phase: 'migrating', slotsToMove: 5000 }) }).operation?.startedAt,
      ).to.equal(T0);
      expect(status({ previous, activity: { type: 'RollingUpdate', message: 'x' } }).operation?.startedAt).to.equal(T1);
    });
  });

  describe('migration progress', () => {
    const table: [string, string | undefined, number, string][] = [
      ['starts at 0 of what is left', undefined, 5461, 'migrating slots: 0/5461'],
      [
        'counts what moved since the largest total seen',
        'migrating slots: 1000/5461',
        3000,
        'migrating slots: 2461/5461',
      ],
      [
        'grows the total when more is left than was seen (the spec grew)',
        'migrating slots: 1000/5461',
        8000,
        'migrating slots: 0/8000',
      ],
      ['reaches the total', 'migrating slots: 5400/5461', 0, 'migrating slots: 5461/5461'],
      ["takes no total from a message that is not a migration's", '5/6 pods ready', 2, 'migrating slots: 0/2'],
    ];
    for (const [what, before, left, want] of table) {
      it(`${what}`, () => {
        const previous: RedisClusterStatus = {
          ...wasReady,
          ...(before ? { operation: { type: 'ScaleOut', progress: before, startedAt: T0 } } : {}),
        };
        expect(
          status({ previous, plan: aPlan({ phase: 'migrating', slotsToMove: left }) }).operation?.progress,
        ).to.equal(want);
      });
    }
  });

  describe('Degraded', () => {
    const table: [string, Partial<StatusInput>, 'True' | 'False', string, string][] = [
      ['nothing is wrong', {}, 'False', 'AsExpected', 'no problem seen'],
      [
        'the plan reports a problem',
        { plan: aPlan({ problems: [{ code: 'NodeUnreachable', message: 'redis-4 does not answer' }] }) },
        'True',
        'NodeUnreachable',
        'redis-4 does not answer',
      ],
      [
        'the plan reports several problems',
        {
          plan: aPlan({
            problems: [
              { code: 'ShardDown', message: 'a' },
              { code: 'NodeUnreachable', message: 'b' },
            ],
          }),
        },
        'True',
        'ShardDown',
        'a; b',
      ],
      [
        'a replica only shares a zone with its master',
        { plan: aPlan({ problems: [{ code: 'PlacementRelaxed', message: 'same zone' }] }) },
        'False',
        'AsExpected',
        'no problem seen',
      ],
      [
        'the pass failed',
        { error: 'Secret x with key password (spec.auth.secretRef) was not found' },
        'True',
        'ReconcileError',
        'Secret x with key password (spec.auth.secretRef) was not found',
      ],
      [
        'a problem and an error',
        { plan: aPlan({ problems: [{ code: 'ShardLost', message: 'a' }] }), error: 'e' },
        'True',
        'ShardLost',
        'a; e',
      ],
    ];
    for (const [what, fields, want, reason, message] of table) {
      it(`is ${want} (${reason}) when ${what}`, () => {
        expect(condition(status(fields), 'Degraded')).to.include({ status: want, reason, message });
      });
    }

    it('cuts a long message to 1000 characters', () => {
      expect(condition(status({ error: 'x'.repeat(5000) }), 'Degraded').message).to.have.length(1000);
    });
  });

  describe('lastTransitionTime', () => {
    it("is kept when a condition's status does not change, even if its message does", () => {
      const first = status({ plan: aPlan({ phase: 'migrating', slotsToMove: 100 }), now: T0 });
      const second = status({ previous: first, plan: aPlan({ phase: 'migrating', slotsToMove: 50 }), now: T1 });
      for (const type of ['Ready', 'Progressing', 'Degraded'])
        expect(condition(second, type).lastTransitionTime, type).to.equal(T0);
    });

    it('moves to now for the conditions whose status changed', () => {
      const first = status({ plan: aPlan({ phase: 'migrating', slotsToMove: 100 }), now: T0 });
      const second = status({ previous: first, now: T1 });
      expect(condition(second, 'Ready').lastTransitionTime).to.equal(T1);
      expect(condition(second, 'Progressing').lastTransitionTime).to.equal(T1);
      expect(condition(second, 'Degraded').lastTransitionTime).to.equal(T0);
    });

    it("makes an unchanged cluster's status equal to the previous one, so nothing is written", () => {
      const first = status({ now: T0 });
      expect(status({ previous: first, now: T1 })).to.deep.equal(first);
    });
  });

  describe('phase', () => {
    const creating = { previous: undefined };
    const table: [string, Partial<StatusInput>, string][] = [
      [
        'a new cluster waits for its pods',
        {
          ...creating,
          topology: undefined,
          plan: undefined,
          activity: { type: 'Create', message: 'waiting for pods: 2/6 ready' },
        },
        'Creating',
      ],
      ['a new cluster is formed', { ...creating, plan: aPlan({ phase: 'bootstrapping' }) }, 'Creating'],
      [
        'a new cluster has a problem',
        { ...creating, plan: aPlan({ problems: [{ code: 'NodeUnreachable', message: 'x' }] }) },
        'Creating',
      ],
      ['it is Ready', { ...creating }, 'Running'],
      ['it was Ready and is converged', {}, 'Running'],
      ['it scales out', { plan: aPlan({ phase: 'migrating', slotsToMove: 10 }) }, 'Scaling'],
      ['it scales in', { plan: aPlan({ phase: 'removing', slotsToMove: 10 }) }, 'Scaling'],
      ['it adds replicas', { plan: aPlan({ phase: 'replicating' }) }, 'Scaling'],
      ['it rolls the pods', { activity: { type: 'RollingUpdate', message: 'x' } }, 'Updating'],
      ['it heals', { plan: aPlan({ phase: 'healing' }) }, 'Running'],
      [
        'a later pass of a scale-out waits for its new pods',
        {
          previous: {
            phase: 'Scaling',
            conditions: [
              { type: 'Ready', status: 'False', reason: 'OperationInProgress', message: '', lastTransitionTime: T0 },
            ],
          },
          pods: somePods(6, (i) => ({ ready: i < 4 })),
          activity: { type: 'ScaleOut', message: '4/6 pods ready' },
        },
        'Scaling',
      ],
      [
        'a later pass of a scale-out moves slots',
        {
          previous: {
            phase: 'Scaling',
            conditions: [
              { type: 'Ready', status: 'False', reason: 'OperationInProgress', message: '', lastTransitionTime: T0 },
            ],
          },
          plan: aPlan({ phase: 'migrating', slotsToMove: 10 }),
        },
        'Scaling',
      ],
      [
        'it lacks masters only because new pods are not Ready yet',
        {
          pods: somePods(6, (i) => ({ ready: i < 4 })),
          plan: aPlan({
            problems: [{ code: 'NotEnoughPods', message: '3 of 4 masters: no empty pod left to make a master' }],
          }),
          activity: { type: 'ScaleOut', message: '4/6 pods ready' },
        },
        'Scaling',
      ],
      [
        'it has a problem after being Ready',
        { plan: aPlan({ problems: [{ code: 'ShardDown', message: 'x' }] }) },
        'Degraded',
      ],
      [
        'a pass failed after being Ready',
        { topology: undefined, plan: undefined, error: 'Secret x was not found' },
        'Degraded',
      ],
      ['it is paused', paused, 'Paused'],
      ['a new cluster is paused', { ...creating, ...paused }, 'Paused'],
    ];
    for (const [what, fields, phase] of table) {
      it(`is ${phase} when ${what}`, () => {
        expect(status(fields).phase).to.equal(phase);
      });
    }
  });

  describe('podsActivityType', () => {
    const shards = (n: number) => Array.from({ length: n }, (_, index) => ({ index, name: `shard-${index}` }));
    const table: [string, RedisClusterStatus | undefined, string][] = [
      ['a new cluster', undefined, 'Create'],
      ['a cluster still being created', { phase: 'Creating' }, 'Create'],
      ['a Ready cluster given more masters', { ...wasReady, shards: shards(3) }, 'ScaleOut'],
      ['a scale-out on a later pass (Ready False by then)', { phase: 'Scaling', shards: shards(3) }, 'ScaleOut'],
      ['a Ready cluster that lost a pod', { ...wasReady, shards: shards(4) }, 'Heal'],
      ['a degraded cluster', { phase: 'Degraded', shards: shards(4) }, 'Heal'],
    ];
    for (const [what, previous, type] of table) {
      it(`is ${type} for ${what}`, () => {
        expect(podsActivityType(previous, 4)).to.equal(type);
      });
    }
  });

  describe('shardsOf', () => {
    it('lists shards by their first slot, each master with its replicas, readiness from the pods', () => {
      // redis-2 owns the first slots, redis-0 the last
      const specs: NodeSpec[] = [
        { pod: 0, slots: '10923-16383' },
        { pod: 1, slots: '5462-10922' },
        { pod: 2, slots: '0-5461' },
        { pod: 3, role: 'replica', of: 2 },
        { pod: 4, role: 'replica', of: 1 },
        { pod: 5, role: 'replica', of: 0 },
      ];
      const shards = shardsOf(
        aTopology(pods(6), specs),
        somePods(6, (i) => ({ ready: i !== 5 })),
      );
      expect(
        shards.map((s) => [s.name, s.master?.pod, s.replicas?.map((r) => `${r.pod}:${r.ready}`), s.slots]),
      ).to.deep.equal([
        ['shard-0', 'redis-2', ['redis-3:true'], [{ start: 0, end: 5461 }]],
        ['shard-1', 'redis-1', ['redis-4:true'], [{ start: 5462, end: 10922 }]],
        ['shard-2', 'redis-0', ['redis-5:false'], [{ start: 10923, end: 16383 }]],
      ]);
      expect(shards[0]?.master).to.deep.include({ ip: '127.9.0.3', ready: true });
    });

    it('leaves out masters without slots (new nodes before migration) and is empty without a topology', () => {
      const specs: NodeSpec[] = [...threeByOne, { pod: 6 }];
      expect(shardsOf(aTopology(pods(7), specs), somePods(7)).map((s) => s.master?.pod)).to.deep.equal([
        'redis-0',
        'redis-1',
        'redis-2',
      ]);
      expect(shardsOf(undefined, somePods(6))).to.deep.equal([]);
    });

    it("names the first shard's master as masterPod", () => {
      expect(status().masterPod).to.equal('redis-0');
    });
  });
});

describe('pausedStatus', () => {
  const previous = status();

  it('keeps what was last seen and only says that changes wait', () => {
    const s = pausedStatus(previous, 7, T1);
    expect(s.shards).to.deep.equal(previous.shards);
    expect(s.slotsCovered).to.equal(previous.slotsCovered);
    expect(s.phase).to.equal('Paused');
    expect(s.observedGeneration).to.equal(7);
    expect(s.conditions?.find((c) => c.type === 'Ready')).to.deep.equal(
      previous.conditions?.find((c) => c.type === 'Ready'),
    );
    expect(s.conditions?.find((c) => c.type === 'Progressing')).to.include({ status: 'False', reason: 'Paused' });
  });

  it('drops the operation in flight', () => {
    const s = pausedStatus({ ...previous, operation: { type: 'ScaleOut', progress: 'migrating slots: 1/2' } }, 7, T1);
    expect(s.operation).to.equal(undefined);
  });
});

describe('failedStatus', () => {
  const previous = status();

  it('keeps what was last seen and says in Degraded why the pass failed', () => {
    const s = failedStatus(previous, 3, 'the API server answered 422: invalid', T1);
    expect(s.shards).to.deep.equal(previous.shards);
    expect(s.conditions?.find((c) => c.type === 'Ready')).to.deep.equal(
      previous.conditions?.find((c) => c.type === 'Ready'),
    );
    expect(s.conditions?.find((c) => c.type === 'Degraded')).to.include({
      status: 'True',
      reason: 'ReconcileError',
      message: 'the API server answered 422: invalid',
      lastTransitionTime: T1,
    });
    expect(s.conditions?.map((c) => c.type)).to.deep.equal(['Ready', 'Progressing', 'Degraded']);
  });

  it('shows a formed cluster as Degraded, and a new one as still Creating', () => {
    expect(failedStatus(previous, 3, 'boom', T1).phase).to.equal('Degraded');
    expect(failedStatus(undefined, 1, 'boom', T1).phase).to.equal('Creating');
  });

  it('writes nothing new when the same failure repeats', () => {
    const once = failedStatus(previous, 3, 'boom', T0);
    expect(failedStatus(once, 3, 'boom', T1)).to.deep.equal(once);
  });
});
