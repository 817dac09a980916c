import { expect } from 'chai';
import { statefulSetReplicas } from '../../../shared/core/reconcile/scale.ts';
import type { DefaultedSpec } from '../../../shared/core/api/defaults.ts';
import type { Observed } from '../../../shared/core/reconcile/observed.ts';
import { aRedisCluster, somePods } from './builders.ts';

function observed(stsReplicas: number | undefined, pods: number): Observed {
  return {
    children:
      stsReplicas === undefined
        ? {}
        : { statefulSet: { spec: { replicas: stsReplicas, selector: {}, serviceName: 'redis-nodes', template: {} } } },
    pods: somePods(pods),
    claims: [],
  };
}
const drained = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `redis-${from + i}`);

describe('scale', () => {
  describe('statefulSetReplicas', () => {
    const spec3x1 = aRedisCluster().withMasters(3).withReplicas(1).spec();
    const spec6x1 = aRedisCluster().withMasters(6).withReplicas(1).spec();
    const table: [string, DefaultedSpec, Observed, readonly string[] | undefined, number][] = [
      ['there is no StatefulSet yet', spec3x1, observed(undefined, 0), undefined, 6],
      ["it has the spec's count", spec3x1, observed(6, 6), undefined, 6],
      ['scaling out: at once', spec6x1, observed(6, 6), undefined, 12],
      ['scaling in, before the engine ran', spec3x1, observed(12, 12), undefined, 12],
      ['scaling in, nothing drained yet', spec3x1, observed(12, 12), [], 12],
      ['scaling in, some drained', spec3x1, observed(12, 12), drained(6, 10), 12],
      ['scaling in, every leaving pod drained and forgotten', spec3x1, observed(12, 12), drained(6, 12), 6],
      ['scaling in, the leaving pods already gone', spec3x1, observed(12, 6), [], 6],
      [
        'scaling in from 6x1 to 3x0, every leaving pod drained',
        aRedisCluster().withMasters(3).withReplicas(0).spec(),
        observed(6, 6),
        drained(3, 6),
        3,
      ],
    ];
    for (const [what, spec, obs, removable, want] of table) {
      it(`keeps ${want} pods when ${what}`, () => {
        expect(statefulSetReplicas(spec, obs, removable)).to.equal(want);
      });
    }

    const stuck = (): Observed => {
      const o = observed(12, 12);
      return {
        ...o,
        pods: o.pods.map((p) =>
          p.ordinal === 11 ? ({ ...p, phase: 'Pending', ip: undefined, ready: false } as Observed['pods'][number]) : p,
        ),
      };
    };
    it('lets a leaving pod that never ran go once the cluster converged without it', () => {
      expect(statefulSetReplicas(spec3x1, stuck(), drained(6, 11), true)).to.equal(6);
    });
    it('keeps a leaving pod that never ran while the cluster has not converged', () => {
      expect(statefulSetReplicas(spec3x1, stuck(), drained(6, 11), false)).to.equal(12);
    });
    it('keeps a running leaving pod the engine has not let go, even when converged', () => {
      expect(statefulSetReplicas(spec3x1, observed(12, 12), drained(6, 11), true)).to.equal(12);
    });
  });
});
