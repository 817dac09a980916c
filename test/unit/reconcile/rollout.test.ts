import { expect } from 'chai';
import type { ObservedPod } from '../../../shared/core/reconcile/observed.ts';
import { planRollout, type RolloutDecision, type RolloutInput } from '../../../shared/core/reconcile/rollout.ts';
import { aPod, somePods } from './builders.ts';

// 3x1: redis-0..2 masters, redis-3..5 replicas.
const roleOf = (pod: string) => (Number(pod.split('-')[1]) < 3 ? ('master' as const) : ('replica' as const));
const outdated =
  (ordinals: number[]) =>
  (i: number): Partial<ObservedPod> =>
    ordinals.includes(i) ? { revision: 'rev-0' } : {};

function plan(fields: Partial<RolloutInput> = {}): RolloutDecision {
  return planRollout({
    pods: somePods(6),
    updateRevision: 'rev-1',
    expectedPods: 6,
    clusterConverged: true,
    roleOf,
    ...fields,
  });
}

describe('rollout', () => {
  const table: [string, Partial<RolloutInput>, RolloutDecision][] = [
    ['there are no pods and no update revision yet', { pods: [], updateRevision: undefined }, { kind: 'none' }],
    [
      'the StatefulSet controller has not published the update revision',
      { updateRevision: undefined },
      { kind: 'wait', reason: 'waiting for the StatefulSet controller to take the new template', outdated: 0 },
    ],
    ['every pod is at the update revision', {}, { kind: 'none' }],
    [
      'a pod has no revision label',
      { pods: somePods(6, (i) => (i === 0 ? { revision: undefined } : {})) },
      { kind: 'none' },
    ],
    [
      'only pods being scaled in are outdated',
      { pods: [...somePods(6), aPod(6, { revision: 'rev-0' }), aPod(7, { revision: 'rev-0' })] },
      { kind: 'none' },
    ],
    [
      'a pod is terminating',
      { pods: somePods(6, (i) => ({ ...outdated([0, 1, 2, 3, 4, 5])(i), terminating: i === 4 })) },
      { kind: 'wait', reason: 'a pod is restarting', outdated: 6 },
    ],
    [
      'a pod is not Ready',
      { pods: somePods(6, (i) => ({ ...outdated([0, 3])(i), ready: i !== 1 })) },
      { kind: 'wait', reason: 'waiting for every pod to be Ready', outdated: 2 },
    ],
    [
      'a pod is missing',
      { pods: somePods(6, outdated([0, 3])).slice(0, 5) },
      { kind: 'wait', reason: 'waiting for every pod to be Ready', outdated: 2 },
    ],
    [
      'the cluster has not converged',
      { pods: somePods(6, outdated([0, 3])), clusterConverged: false },
      { kind: 'wait', reason: 'waiting for the cluster to settle', outdated: 2 },
    ],
    [
      'a backup in progress holds restarts',
      { pods: somePods(6, outdated([0, 3])), hold: 'backup nightly is reading the shards' },
      { kind: 'wait', reason: 'backup nightly is reading the shards', outdated: 2 },
    ],
    [
      'masters and replicas are outdated: the replica goes first',
      { pods: somePods(6, outdated([0, 1, 2, 3])) },
      { kind: 'restart', pod: 'redis-3', role: 'replica', outdated: 4 },
    ],
    [
      'several replicas are outdated: the highest ordinal first',
      { pods: somePods(6, outdated([0, 3, 4, 5])) },
      { kind: 'restart', pod: 'redis-5', role: 'replica', outdated: 4 },
    ],
    [
      'only masters are outdated: the highest ordinal first',
      { pods: somePods(6, outdated([0, 2])) },
      { kind: 'restart', pod: 'redis-2', role: 'master', outdated: 2 },
    ],
    [
      'one master is left',
      { pods: somePods(6, outdated([1])) },
      { kind: 'restart', pod: 'redis-1', role: 'master', outdated: 1 },
    ],
    [
      'a failover made a high ordinal the master: roles come from the cluster, not the ordinal',
      {
        pods: somePods(6, outdated([0, 5])),
        roleOf: (pod) => (pod === 'redis-5' ? 'master' : pod === 'redis-0' ? 'replica' : roleOf(pod)),
      },
      { kind: 'restart', pod: 'redis-0', role: 'replica', outdated: 2 },
    ],
  ];
  for (const [what, fields, want] of table) {
    it(`decides ${want.kind}${want.kind === 'restart' ? ` ${want.pod}` : ''} when ${what}`, () => {
      expect(plan(fields)).to.deep.equal(want);
    });
  }

  it('restarts every outdated pod once, replicas before masters, when applied pass after pass', () => {
    let pods = somePods(6, () => ({ revision: 'rev-0' }));
    const order: string[] = [];
    for (let pass = 0; pass < 10; pass++) {
      const decision = plan({ pods });
      if (decision.kind !== 'restart') break;
      order.push(decision.pod);
      pods = pods.map((p) => (p.name === decision.pod ? { ...p, revision: 'rev-1' } : p));
    }
    expect(order).to.deep.equal(['redis-5', 'redis-4', 'redis-3', 'redis-2', 'redis-1', 'redis-0']);
  });
});
