import { expect } from 'chai';
import { checkScheduling, type SchedulingSpec } from '../../../shared/core/api/validate-scheduling.ts';
import { validateV1beta1 } from '../../../shared/core/api/validate-spec.ts';
import { aBeta } from './builders.ts';

const required = (matchExpressions: object[]) =>
  ({
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions }] } },
  }) as SchedulingSpec['affinity'];

describe('api/validate-scheduling', () => {
  const accepted: [string, SchedulingSpec][] = [
    ['nothing set', {}],
    ['a prefixed nodeSelector', { nodeSelector: { 'knredis.test/disk': 'ssd', 'kubernetes.io/os': 'linux' } }],
    ['an empty label value', { nodeSelector: { dedicated: '' } }],
    ['a toleration of every taint', { tolerations: [{ operator: 'Exists' }] }],
    [
      'a NoExecute toleration with seconds',
      { tolerations: [{ key: 'k', effect: 'NoExecute', tolerationSeconds: 30 }] },
    ],
    [
      'In with values, Exists without, Gt with one integer',
      {
        affinity: required([
          { key: 'disk', operator: 'In', values: ['ssd'] },
          { key: 'gpu', operator: 'DoesNotExist' },
          { key: 'cores', operator: 'Gt', values: ['4'] },
        ]),
      },
    ],
  ];
  for (const [what, spec] of accepted) {
    it(`accepts ${what}`, () => expect(checkScheduling(spec)).to.deep.equal([]));
  }

  const refused: [string, SchedulingSpec, RegExp][] = [
    [
      'a nodeSelector key with a space',
      { nodeSelector: { 'disk type': 'ssd' } },
      /^spec\.nodeSelector: "disk type" is not a valid label key$/,
    ],
    [
      'a nodeSelector value with a slash',
      { nodeSelector: { disk: 'a/b' } },
      /^spec\.nodeSelector\[disk\]: "a\/b" is not a valid label value/,
    ],
    [
      'a toleration without key nor Exists',
      { tolerations: [{ value: 'x' }] },
      /^spec\.tolerations\[0\]: a toleration without a key must have operator Exists/,
    ],
    [
      'Exists with a value',
      { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] },
      /^spec\.tolerations\[0\]\.value: must be empty/,
    ],
    [
      'tolerationSeconds without NoExecute',
      { tolerations: [{ key: 'k', effect: 'NoSchedule', tolerationSeconds: 5 }] },
      /tolerationSeconds: only applies to effect NoExecute/,
    ],
    [
      'no node selector term',
      { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } },
      /nodeSelectorTerms: give at least one term/,
    ],
    [
      'In without values',
      { affinity: required([{ key: 'disk', operator: 'In' }]) },
      /matchExpressions\[0\]: operator In needs at least one value/,
    ],
    [
      'Exists with values',
      { affinity: required([{ key: 'disk', operator: 'Exists', values: ['x'] }]) },
      /operator Exists takes no values/,
    ],
    [
      'Lt with a word',
      { affinity: required([{ key: 'cores', operator: 'Lt', values: ['many'] }]) },
      /operator Lt needs exactly one integer value/,
    ],
    [
      'a pod anti-affinity term without a topology key',
      {
        affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: '' }] } },
      },
      /^spec\.affinity\.podAntiAffinity\.requiredDuringSchedulingIgnoredDuringExecution\[0\]\.topologyKey: required/,
    ],
  ];
  for (const [what, spec, message] of refused) {
    it(`refuses ${what}`, () => {
      const denials = checkScheduling(spec);
      expect(denials).to.have.length(1);
      expect(denials[0]).to.match(message);
    });
  }

  it('is part of the admission of a create and of an update', () => {
    const bad = { tolerations: [{ key: 'k', operator: 'Exists' as const, value: 'v' }] };
    expect(validateV1beta1(aBeta(bad), undefined).denials).to.have.length(1);
    expect(validateV1beta1(aBeta(bad), aBeta({})).denials).to.have.length(1);
    // An object admitted before these rules still takes a finalizer or status update.
    expect(validateV1beta1(aBeta({ ...bad, masters: 3 }), aBeta(bad)).denials).to.deep.equal([]);
  });
});
