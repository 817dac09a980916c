import { expect } from 'chai';
import type { PodPlacement } from '../../../shared/core/cluster/desired.ts';
import { chooseMasters, pairReplicas, type ReplicaCandidate } from '../../../shared/core/cluster/placement.ts';

const pod = (name: string, nodeName: string, zone = nodeName): PodPlacement => ({
  name,
  address: { ip: '127.0.0.1', port: 6379 },
  nodeName,
  zone,
});

// Masters and replicas by name: 'm1@n0' is a master m1 on node n0 (zone n0 unless given).
function pairing(
  masters: string[],
  replicas: [string, string | null][],
  zoneOf: (node: string) => string = (n) => n,
): Record<string, string> {
  const parse = (s: string) => {
    const [name, node] = s.split('@') as [string, string];
    return pod(name, node, zoneOf(node));
  };
  const mp = new Map(masters.map((m) => [m.split('@')[0] as string, parse(m)]));
  const candidates: ReplicaCandidate[] = replicas.map(([r, current]) => ({
    id: r.split('@')[0] as string,
    pod: parse(r),
    current,
  }));
  const seats = new Map([...mp.keys()].map((m) => [m, 1]));
  const zones = new Set([...mp.values(), ...candidates.map((c) => c.pod)].map((p) => p.zone)).size;
  return Object.fromEntries(
    [...pairReplicas(seats, mp, candidates, zones)].map(([r, p]) => [r, `${p.master} ${p.tier}`]),
  );
}

describe('pairReplicas', () => {
  const cases: [string, string[], [string, string | null][], Record<string, string>, ((n: string) => string)?][] = [
    [
      'keeps every current pair that is placed well',
      ['m1@n0', 'm2@n1'],
      [
        ['r1@n1', 'm1'],
        ['r2@n0', 'm2'],
      ],
      { r1: 'm1 zone', r2: 'm2 zone' },
    ],
    [
      'moves a well placed replica to free the only seat a replica beside its master can take',
      ['m1@n0', 'm2@n1', 'm3@n0'],
      [
        ['a@n0', 'm1'],
        ['b@n2', 'm2'],
        ['c@n1', 'm3'],
      ],
      { a: 'm2 zone', b: 'm1 zone', c: 'm3 zone' },
    ],
    [
      'keeps a pair in one zone when no other zone has a free pod (zones a, a, b)',
      ['m0@n0', 'm1@n1', 'm2@n2'],
      [
        ['r3@n0', 'm1'],
        ['r4@n1', 'm2'],
        ['r5@n2', 'm0'],
      ],
      { r3: 'm1 node', r4: 'm2 zone', r5: 'm0 zone' },
      (n) => (n === 'n2' ? 'b' : 'a'),
    ],
    ['attaches beside the master when every pod runs on one node', ['m1@n0'], [['r1@n0', null]], { r1: 'm1 none' }],
    [
      'leaves a surplus replica where it is, unpaired',
      ['m1@n0'],
      [
        ['r1@n1', 'm1'],
        ['r2@n2', 'm1'],
      ],
      { r1: 'm1 zone' },
    ],
  ];
  for (const [name, masters, replicas, expected, zoneOf] of cases) {
    it(`${name}`, () => {
      expect(pairing(masters, replicas, zoneOf)).to.deep.equal(expected);
    });
  }

  it('pairs its own result again without a change (idempotent)', () => {
    const first = pairing(
      ['m1@n0', 'm2@n1', 'm3@n0'],
      [
        ['a@n0', 'm1'],
        ['b@n2', 'm2'],
        ['c@n1', 'm3'],
      ],
    );
    const again = pairing(
      ['m1@n0', 'm2@n1', 'm3@n0'],
      Object.entries(first).map(([r, p]) => [`${r}@${{ a: 'n0', b: 'n2', c: 'n1' }[r]}`, p.split(' ')[0] as string]),
    );
    expect(again).to.deep.equal(first);
  });
});

// Pods as 'name@node' or 'name@node/zone' (zone is the node's name unless given).
describe('chooseMasters', () => {
  const parse = (s: string) => {
    const [name, where] = s.split('@') as [string, string];
    const [node, zone] = where.split('/') as [string, string | undefined];
    return pod(name, node, zone ?? node);
  };
  const cases: [string, string[], string[], number, string[]][] = [
    [
      'spreads new masters over nodes, in name order where all are equal',
      ['a@n0', 'b@n0', 'c@n1', 'd@n2'],
      [],
      3,
      ['a', 'c', 'd'],
    ],
    ['avoids the zone of an existing master before its node', ['x@n1/z0', 'y@n0/z1'], ['m@n0/z0'], 1, ['y']],
    ['avoids the node of an existing master within a zone', ['x@n0/z1', 'y@n1/z1'], ['m@n0/z0'], 1, ['y']],
    ['orders names numerically (redis-2 before redis-10)', ['redis-10@n1', 'redis-2@n2'], [], 1, ['redis-2']],
    ['returns fewer than asked when candidates run out', ['a@n0'], [], 3, ['a']],
  ];
  for (const [name, candidates, existing, count, expected] of cases) {
    it(`${name}`, () => {
      const chosen = chooseMasters(candidates.map(parse), existing.map(parse), count);
      expect(chosen.map((p) => p.name)).to.deep.equal(expected);
    });
  }
});
