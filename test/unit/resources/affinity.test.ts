import { expect } from 'chai';
import type { Affinity } from '../../../shared/core/api/k8s-types.ts';
import { HOSTNAME_KEY, podAffinityOf, spreadTerms, ZONE_KEY } from '../../../shared/core/resources/affinity.ts';

const ssdOnly: Affinity['nodeAffinity'] = {
  requiredDuringSchedulingIgnoredDuringExecution: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }],
  },
};
const nearApp: Affinity['podAffinity'] = {
  preferredDuringSchedulingIgnoredDuringExecution: [
    { weight: 10, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: ZONE_KEY } },
  ],
};
const awayFromBatch = { labelSelector: { matchLabels: { app: 'batch' } }, topologyKey: HOSTNAME_KEY };
const spread = spreadTerms('cache');

describe('affinity', () => {
  describe('podAffinityOf', () => {
    const table: [string, Affinity | undefined, Affinity][] = [
      [
        'no affinity: only the spread',
        undefined,
        { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: spread } },
      ],
      [
        'nodeAffinity: kept as given, the spread beside it',
        { nodeAffinity: ssdOnly },
        { nodeAffinity: ssdOnly, podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: spread } },
      ],
      [
        'podAffinity: kept as given',
        { podAffinity: nearApp },
        { podAffinity: nearApp, podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: spread } },
      ],
      [
        'a required podAntiAffinity: kept, the spread added as preferred',
        { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [awayFromBatch] } },
        {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [awayFromBatch],
            preferredDuringSchedulingIgnoredDuringExecution: spread,
          },
        },
      ],
      [
        "a preferred podAntiAffinity: the user's terms first, then the spread",
        {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: awayFromBatch }],
          },
        },
        {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: awayFromBatch }, ...spread],
          },
        },
      ],
    ];
    for (const [what, user, want] of table) {
      it(`merges ${what}`, () => {
        expect(podAffinityOf('cache', user)).to.deep.equal(want);
      });
    }

    it("spreads by the cluster's own selector labels, nodes before zones", () => {
      expect(spread.map((t) => [t.weight, t.podAffinityTerm.topologyKey])).to.deep.equal([
        [100, HOSTNAME_KEY],
        [50, ZONE_KEY],
      ]);
      expect(spread[0]?.podAffinityTerm.labelSelector?.matchLabels).to.include({
        'app.kubernetes.io/instance': 'cache',
      });
    });
  });
});
