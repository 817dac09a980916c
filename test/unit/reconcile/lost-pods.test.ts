import { expect } from 'chai';
import { LOST_NODE_GRACE_MS, nextLostPodCheck, podsToForceDelete } from '../../../shared/core/reconcile/lost-pods.ts';
import type { ObservedPod } from '../../../shared/core/reconcile/observed.ts';
import { aPod } from './builders.ts';

const NOW = 1_000_000;

describe('lost-pods', () => {
  const table: [string, Partial<ObservedPod>, boolean, number | undefined][] = [
    ['a healthy pod', {}, false, undefined],
    ['a terminating pod on a healthy node', { terminating: true }, false, undefined],
    ['a pod on a lost node that is not terminating (not evicted yet)', { nodeLostSince: NOW - 60_000 }, false, undefined],
    ['a terminating pod on a node lost just now', { terminating: true, nodeLostSince: NOW }, false, LOST_NODE_GRACE_MS],
    ['a terminating pod on a node lost 5 s ago', { terminating: true, nodeLostSince: NOW - 5_000 }, false, LOST_NODE_GRACE_MS - 5_000],
    ['a terminating pod on a node lost exactly the grace ago', { terminating: true, nodeLostSince: NOW - LOST_NODE_GRACE_MS }, true, undefined],
    ['a terminating pod on a node lost long ago', { terminating: true, nodeLostSince: NOW - 10 * LOST_NODE_GRACE_MS }, true, undefined],
  ];
  for (const [what, fields, deleted, next] of table) {
    it(`${deleted ? 'force-deletes' : 'keeps'} ${what}${next !== undefined ? `, and looks again in ${next} ms` : ''}`, () => {
      const pods = [aPod(0), aPod(1, fields)];
      expect(podsToForceDelete(pods, NOW)).to.deep.equal(deleted ? ['redis-1'] : []);
      expect(nextLostPodCheck(pods, NOW)).to.equal(next);
    });
  }

  it('looks again when the first of several pods passes its grace', () => {
    const pods = [aPod(0, { terminating: true, nodeLostSince: NOW - 2_000 }), aPod(1, { terminating: true, nodeLostSince: NOW - 15_000 }), aPod(2, { terminating: true, nodeLostSince: NOW - 30_000 })];
    expect(podsToForceDelete(pods, NOW)).to.deep.equal(['redis-2']);
    expect(nextLostPodCheck(pods, NOW)).to.equal(LOST_NODE_GRACE_MS - 15_000);
  });

  it('honours a grace period passed in', () => {
    const pods = [aPod(0, { terminating: true, nodeLostSince: NOW - 2_000 })];
    expect(podsToForceDelete(pods, NOW, 1_000)).to.deep.equal(['redis-0']);
    expect(nextLostPodCheck(pods, NOW, 3_000)).to.equal(1_000);
  });
});
