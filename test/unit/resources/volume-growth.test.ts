import { expect } from 'chai';
import { compareQuantities, parseQuantity } from '../../../shared/core/resources/quantity.ts';
import { planVolumes, type ClaimSize, type VolumeInput } from '../../../shared/core/resources/volume-growth.ts';

const claim = (name: string, requested: string, capacity?: string): ClaimSize => ({
  name,
  requested,
  ...(capacity ? { capacity } : {}),
});
const input = (fields: Partial<VolumeInput>): VolumeInput => ({
  size: '2Gi',
  templateSize: '1Gi',
  statefulSetDeleting: false,
  claims: [],
  ...fields,
});

describe('volume-growth', () => {
  describe('parseQuantity', () => {
    const table: [string, number | undefined][] = [
      ['1Gi', 2 ** 30],
      ['1536Mi', 1.5 * 2 ** 30],
      ['1G', 1e9],
      ['1e9', 1e9],
      ['500m', 0.5],
      ['0.5Gi', 2 ** 29],
      ['10', 10],
      ['1 Gi', undefined],
      ['Gi', undefined],
      ['1GB', undefined],
    ];
    for (const [text, want] of table)
      it(`reads ${JSON.stringify(text)} as ${want}`, () => expect(parseQuantity(text)).to.equal(want));

    it('compares quantities written in different units', () => {
      expect(compareQuantities('1Gi', '1024Mi')).to.equal(0);
      expect(compareQuantities('1G', '1Gi')).to.equal(-1);
      expect(compareQuantities('2Gi', '2G')).to.equal(1);
      expect(compareQuantities('2Gi', 'much')).to.equal(undefined);
    });
  });

  describe('planVolumes', () => {
    const table: [string, Partial<VolumeInput>, { expand: string[]; statefulSet: string; resizing?: string }][] = [
      [
        'nothing changes at the same size',
        { size: '1Gi', claims: [claim('data-r-0', '1Gi', '1Gi'), claim('data-r-1', '1024Mi', '1Gi')] },
        { expand: [], statefulSet: 'apply' },
      ],
      [
        'a new cluster (no StatefulSet yet) creates it',
        { templateSize: undefined },
        { expand: [], statefulSet: 'apply' },
      ],
      [
        'a larger size grows every smaller claim and replaces the StatefulSet',
        { claims: [claim('data-r-0', '1Gi', '1Gi'), claim('data-r-1', '1Gi', '1Gi')] },
        {
          expand: ['data-r-0', 'data-r-1'],
          statefulSet: 'replace',
          resizing: 'resizing volumes to 2Gi: 0/2 done, replacing the StatefulSet',
        },
      ],
      [
        'a StatefulSet being deleted is waited for, and claims already raised are not raised again',
        { statefulSetDeleting: true, claims: [claim('data-r-0', '2Gi', '1Gi'), claim('data-r-1', '1Gi', '1Gi')] },
        {
          expand: ['data-r-1'],
          statefulSet: 'wait',
          resizing: 'resizing volumes to 2Gi: 0/2 done, replacing the StatefulSet',
        },
      ],
      [
        'once replaced, it says so while a volume is still smaller',
        { templateSize: '2Gi', claims: [claim('data-r-0', '2Gi', '2Gi'), claim('data-r-1', '2Gi', '1Gi')] },
        { expand: [], statefulSet: 'apply', resizing: 'resizing volumes to 2Gi: 1/2 done' },
      ],
      [
        'a claim not provisioned yet is not counted as resizing',
        { templateSize: '2Gi', claims: [claim('data-r-0', '2Gi', '2Gi'), claim('data-r-1', '2Gi')] },
        { expand: [], statefulSet: 'apply' },
      ],
      [
        'a volume larger than asked (the class rounds up) is done',
        { templateSize: '2Gi', claims: [claim('data-r-0', '2Gi', '4Gi')] },
        { expand: [], statefulSet: 'apply' },
      ],
    ];
    for (const [what, fields, want] of table) {
      it(what, () => {
        expect(planVolumes(input(fields))).to.deep.equal(want);
      });
    }
  });
});
