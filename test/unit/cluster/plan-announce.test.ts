import { expect } from 'chai';
import type { AnnouncedAddress, DesiredCluster } from '../../../shared/core/cluster/desired.ts';
import { planAnnounce } from '../../../shared/core/cluster/plan-announce.ts';
import { toPlanContext } from '../../../shared/core/cluster/plan-context.ts';
import type { Topology } from '../../../shared/core/cluster/topology.ts';
import { announcingOf } from '../../../shared/io/redis/observe.ts';
import { aDesired, aTopology, pods, threeByOne } from './builders.ts';

const all = pods(6);
const at = (i: number): AnnouncedAddress => ({ ip: '10.0.0.1', port: 30000 + i, busPort: 31000 + i });

/** The 3x1 cluster, each pod given `announced(i)`, each node announcing `announcing(i)` (undefined: not asked). */
function plan(
  announced: (i: number) => AnnouncedAddress | null | undefined,
  announcing: (i: number) => AnnouncedAddress | null | undefined,
) {
  const desired: DesiredCluster = aDesired(
    3,
    1,
    all.map((p, i) => (announced(i) === undefined ? p : { ...p, announced: announced(i) as AnnouncedAddress | null })),
  );
  const topology = aTopology([...desired.pods], threeByOne);
  const withAnnouncing: Topology = {
    ...topology,
    views: topology.views.map((v, i) => (announcing(i) === undefined ? v : { ...v, announcing: announcing(i) })),
  };
  const result = planAnnounce(toPlanContext(desired, withAnnouncing, 1_000_000));
  return {
    steps: result.steps.map((s) =>
      s.kind === 'announce' ? `${s.node.pod}>${s.to ? `${s.to.port}@${s.to.busPort}` : 'own'}` : s.kind,
    ),
    problems: result.problems.map((p) => `${p.code}: ${p.message}`),
  };
}

describe('planAnnounce (external access)', () => {
  it('announces each node at its pod’s address where it announces another or none', () => {
    const r = plan(at, (i) => (i === 0 ? at(0) : i === 1 ? { ...at(1), busPort: 1 } : null));
    expect(r.steps).to.deep.equal([
      'redis-1>30001@31001',
      'redis-2>30002@31002',
      'redis-3>30003@31003',
      'redis-4>30004@31004',
      'redis-5>30005@31005',
    ]);
    expect(r.problems).to.deep.equal([]);
  });
  it('plans nothing once every node announces its address, or when nobody asked the nodes', () => {
    expect(plan(at, at).steps).to.deep.equal([]);
    expect(plan(at, () => undefined).steps).to.deep.equal([]);
    expect(
      plan(
        () => undefined,
        () => null,
      ).steps,
    ).to.deep.equal([]);
  });
  it('clears what a node still announces once external access is off', () => {
    expect(
      plan(
        () => undefined,
        (i) => (i === 4 ? at(4) : null),
      ).steps,
    ).to.deep.equal(['redis-4>own']);
  });
  it('reports a pod with no address yet as blocking, and announces the others meanwhile', () => {
    const r = plan(
      (i) => (i === 2 ? null : at(i)),
      () => null,
    );
    expect(r.steps).to.have.length(5);
    expect(r.problems).to.deep.equal([
      'ExternalAddressPending: no external address yet for redis-2 (spec.externalAccess): clients outside cannot reach it',
    ]);
  });
  it('reads CONFIG GET cluster-announce-* replies', () => {
    expect(
      announcingOf([
        'cluster-announce-ip',
        '',
        'cluster-announce-port',
        '0',
        'cluster-announce-bus-port',
        '0',
        'cluster-announce-tls-port',
        '0',
      ]),
    ).to.equal(null);
    expect(
      announcingOf([
        'cluster-announce-bus-port',
        '31000',
        'cluster-announce-ip',
        '10.0.0.1',
        'cluster-announce-port',
        '30000',
      ]),
    ).to.deep.equal({ ip: '10.0.0.1', port: 30000, busPort: 31000 });
  });
});
