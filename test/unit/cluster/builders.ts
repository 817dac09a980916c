// Small builders for planner tables: a topology as CLUSTER NODES text per pod.
import type { DesiredCluster, PodPlacement } from '../../../shared/core/cluster/desired.ts';
import { parseClusterNodes } from '../../../shared/core/cluster/parse-cluster-nodes.ts';
import type { NodeView, Topology } from '../../../shared/core/cluster/topology.ts';
import { toPlanContext, type PlanContext } from '../../../shared/core/cluster/plan-context.ts';

export const idOf = (n: number) => String(n).padStart(40, 'a');

export function pods(n: number, nodes = 3): PodPlacement[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `redis-${i}`,
    address: { ip: `127.9.0.${i + 1}`, port: 6379 },
    nodeName: `node-${i % nodes}`,
    zone: `zone-${i % nodes}`,
  }));
}

export function aDesired(masters: number, replicas: number, all: PodPlacement[]): DesiredCluster {
  return { masters, replicasPerMaster: replicas, pods: all };
}

export interface NodeSpec {
  pod: number;
  role?: 'master' | 'replica';
  of?: number;
  slots?: string;
  fail?: boolean;
  epoch?: number;
  /** PFAIL instead of FAIL (with fail). */
  pfail?: boolean;
  /** Only these viewers mark it failing (with fail; default: every viewer). */
  failedBy?: number[];
  /** INFO replication of a replica: link down or still syncing. */
  syncing?: boolean;
  /** Keys this node holds (default: the topology's `keys`). */
  keys?: number;
  /** Outside the cluster: it lists only itself and no other node lists it (fresh, or forgotten). */
  alone?: boolean;
  /** The pods its CLUSTER NODES lists besides itself (default: every node not alone). */
  knows?: number[];
  /** The address some views (by pod, itself included) list it at: a node that moved. */
  listedAt?: { ip: string; by: number[] };
}

/** A cluster where every listed node knows every other (unless `alone` or `knows` say otherwise); nodes without a view are unreachable. */
export function aTopology(
  all: PodPlacement[],
  specs: NodeSpec[],
  options: {
    unreachable?: number[];
    keys?: number;
    keysInSlot?: Record<number, number> | ((viewer: number) => Record<number, number>);
    now?: number;
    lines?: (viewer: number) => string[];
  } = {},
): Topology {
  const now = options.now ?? 1_000_000;
  const line = (s: NodeSpec, viewer: NodeSpec) => {
    const p = all[s.pod] as PodPlacement;
    const ip = s.listedAt?.by.includes(viewer.pod) ? s.listedAt.ip : p.address.ip;
    const role = s.role === 'replica' ? 'slave' : 'master';
    const fail = !!s.fail && (s.failedBy ?? [viewer.pod]).includes(viewer.pod) && s !== viewer;
    const flags = [s === viewer ? 'myself' : '', role, fail ? (s.pfail ? 'fail?' : 'fail') : '']
      .filter(Boolean)
      .join(',');
    return `${idOf(s.pod)} ${ip}:${p.address.port}@16379 ${flags} ${s.role === 'replica' ? idOf(s.of ?? 0) : '-'} 0 ${s.fail ? now - 60_000 : now} ${s.epoch ?? s.pod + 1} ${s.fail ? 'disconnected' : 'connected'} ${s.slots ?? ''}`.trim();
  };
  const views: NodeView[] = specs
    .filter((s) => !(options.unreachable ?? []).includes(s.pod))
    .map((s) => {
      const p = all[s.pod] as PodPlacement;
      const listed = specs.filter(
        (o) => o === s || (!s.alone && !o.alone && (s.knows === undefined || s.knows.includes(o.pod))),
      );
      const text = [...listed.map((o) => line(o, s)), ...(options.lines?.(s.pod) ?? [])].join('\n');
      return {
        pod: p.name,
        address: p.address,
        id: idOf(s.pod),
        entries: parseClusterNodes(text),
        info: {
          state: 'ok',
          slotsAssigned: 16384,
          knownNodes: specs.length,
          size: 3,
          currentEpoch: 10,
          myEpoch: s.epoch ?? s.pod + 1,
        },
        replication:
          s.role === 'replica'
            ? { role: 'replica', offset: 100, linkUp: !s.syncing, syncInProgress: !!s.syncing }
            : { role: 'master', offset: 100 },
        keys: s.keys ?? options.keys ?? 10,
        nodeTimeoutMs: 2000,
        keysInSlot: typeof options.keysInSlot === 'function' ? options.keysInSlot(s.pod) : (options.keysInSlot ?? {}),
      };
    });
  const unreachable = (options.unreachable ?? []).map((i) => ({
    pod: (all[i] as PodPlacement).name,
    address: (all[i] as PodPlacement).address,
    reason: 'ECONNREFUSED',
  }));
  return { views, unreachable, observedAt: now };
}

export const threeByOne: NodeSpec[] = [
  { pod: 0, slots: '0-5461' },
  { pod: 1, slots: '5462-10922' },
  { pod: 2, slots: '10923-16383' },
  { pod: 3, role: 'replica', of: 1 },
  { pod: 4, role: 'replica', of: 2 },
  { pod: 5, role: 'replica', of: 0 },
];

/** The context one planning phase reads, for tables over a single phase. */
export function aContext(
  desired: DesiredCluster,
  specs: NodeSpec[],
  options: Parameters<typeof aTopology>[2] = {},
): PlanContext {
  return toPlanContext(desired, aTopology([...desired.pods], specs, options), options.now ?? 1_000_000);
}

/** A CLUSTER NODES line about a node no pod answers as: a ghost, a replaced id, a handshake. */
export function aLine(
  id: string,
  ip: string,
  options: {
    role?: 'master' | 'replica';
    of?: string;
    slots?: string;
    epoch?: number;
    /** noaddr: Redis' mark for an id whose address answered with another id (listed as :0@0). */
    flag?: 'fail' | 'fail?' | 'handshake' | 'noaddr';
    silentMs?: number;
    now?: number;
  } = {},
): string {
  const now = options.now ?? 1_000_000;
  const flags = [options.role === 'replica' ? 'slave' : 'master', options.flag].filter(Boolean).join(',');
  const pong = now - (options.silentMs ?? 60_000);
  const link = options.flag === 'fail?' || options.flag === undefined ? 'connected' : 'disconnected';
  const address = options.flag === 'noaddr' ? ':0@0' : `${ip}:6379@16379`;
  return `${id} ${address} ${flags} ${options.of ?? '-'} 0 ${pong} ${options.epoch ?? 0} ${link} ${options.slots ?? ''}`.trim();
}
