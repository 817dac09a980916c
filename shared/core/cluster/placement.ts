// Where masters and replicas go: masters spread over Kubernetes nodes (and zones), each replica
// on another node than its master, and in another zone when the pods span several zones.
import type { PodPlacement } from './desired.ts';

export function zoneCount(pods: readonly PodPlacement[]): number {
  return new Set(pods.map((p) => p.zone ?? '')).size;
}

/** May `replica` serve `master`? Never on the same node; not in the same zone when zones > 1. */
function canReplicate(replica: PodPlacement, master: PodPlacement, zones: number): boolean {
  if (replica.nodeName === master.nodeName) return false;
  return zones <= 1 || (replica.zone ?? '') !== (master.zone ?? '');
}

/**
 * Picks `count` more masters from candidates, greedily: fewest masters already on the same
 * zone, then on the same node, then by name. Greedy picks are stable when unpicked candidates
 * disappear (become replicas) between passes, so every pass designates the same pods.
 */
export function chooseMasters(
  candidates: readonly PodPlacement[],
  existing: readonly PodPlacement[],
  count: number,
): PodPlacement[] {
  const chosen: PodPlacement[] = [];
  const pool = [...candidates].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  while (chosen.length < count && pool.length > 0) {
    const taken = [...existing, ...chosen];
    const score = (p: PodPlacement) => [
      taken.filter((t) => (t.zone ?? '') === (p.zone ?? '')).length,
      taken.filter((t) => t.nodeName === p.nodeName).length,
    ];
    let bestIndex = 0;
    pool.forEach((p, i) => {
      const [z, n] = score(p);
      const [bz, bn] = score(pool[bestIndex] as PodPlacement);
      if ((z ?? 0) < (bz ?? 0) || (z === bz && (n ?? 0) < (bn ?? 0))) bestIndex = i;
    });
    chosen.push(...pool.splice(bestIndex, 1));
  }
  return chosen;
}

/** How well a replica is placed: `zone` (another zone, or one zone only), `node` (another node of
 * the same zone: not enough zones), `none` (beside its master: no other seat possible). */
type PlacementTier = 'zone' | 'node' | 'none';

export interface ReplicaCandidate {
  readonly id: string;
  readonly pod: PodPlacement;
  /** The designated master it replicates now, if any. */
  readonly current: string | null;
}

export interface ReplicaPairing {
  readonly master: string;
  readonly tier: PlacementTier;
}

/**
 * Pairs replicas with masters' seats (`seats`: master -> replicas wanted) in one global
 * assignment (min-cost flow): as many seats filled as there are replicas, then, in this order,
 * fewest replicas beside their master (on its node), fewest in their master's zone, fewest
 * replicas moved from their current master. A correctly placed replica therefore moves only
 * to free a seat for a better pairing, and pairing the result again changes nothing.
 */
export function pairReplicas(
  seats: ReadonlyMap<string, number>,
  masters: ReadonlyMap<string, PodPlacement>,
  candidates: readonly ReplicaCandidate[],
  zones: number,
): Map<string, ReplicaPairing> {
  const masterIds = [...seats.keys()].filter((m) => masters.has(m)).sort();
  const replicas = [...candidates].sort((a, b) => a.id.localeCompare(b.id));
  const tierOf = (r: ReplicaCandidate, m: string): PlacementTier => {
    const mp = masters.get(m) as PodPlacement;
    return canReplicate(r.pod, mp, zones) ? 'zone' : canReplicate(r.pod, mp, 1) ? 'node' : 'none';
  };
  const tierCost: Record<PlacementTier, number> = { zone: 0, node: 1_000, none: 1_000_000 };
  // Graph: 0 source, 1..R replicas, R+1..R+M masters, R+M+1 sink.
  const R = replicas.length;
  const sink = R + masterIds.length + 1;
  const edges: { to: number; cap: number; cost: number }[] = [];
  const adj: number[][] = Array.from({ length: sink + 1 }, () => []);
  const edge = (a: number, b: number, cap: number, cost: number) => {
    adj[a]?.push(edges.length);
    edges.push({ to: b, cap, cost });
    adj[b]?.push(edges.length);
    edges.push({ to: a, cap: 0, cost: -cost });
  };
  replicas.forEach((r, i) => {
    edge(0, 1 + i, 1, 0);
    masterIds.forEach((m, j) => edge(1 + i, 1 + R + j, 1, tierCost[tierOf(r, m)] + (r.current === m ? 0 : 1)));
  });
  masterIds.forEach((m, j) => edge(1 + R + j, sink, seats.get(m) ?? 0, 0));
  // Successive shortest paths (Bellman-Ford: residual edges carry negative costs).
  for (;;) {
    const dist = new Array<number>(sink + 1).fill(Number.POSITIVE_INFINITY);
    const via = new Array<number>(sink + 1).fill(-1);
    dist[0] = 0;
    for (let changed = true; changed;) {
      changed = false;
      for (let u = 0; u <= sink; u++) {
        if (dist[u] === Number.POSITIVE_INFINITY) continue;
        for (const e of adj[u] ?? []) {
          const { to, cap, cost } = edges[e] as { to: number; cap: number; cost: number };
          if (cap > 0 && (dist[u] as number) + cost < (dist[to] as number)) {
            dist[to] = (dist[u] as number) + cost;
            via[to] = e;
            changed = true;
          }
        }
      }
    }
    if (via[sink] === -1) break;
    for (let v = sink; v !== 0;) {
      const e = via[v] as number;
      (edges[e] as { cap: number }).cap -= 1;
      (edges[e ^ 1] as { cap: number }).cap += 1;
      v = (edges[e ^ 1] as { to: number }).to;
    }
  }
  const pairs = new Map<string, ReplicaPairing>();
  replicas.forEach((r, i) => {
    for (const e of adj[1 + i] ?? []) {
      const { to, cap } = edges[e] as { to: number; cap: number };
      if (to > R && to < sink && cap === 0 && e % 2 === 0) {
        const master = masterIds[to - R - 1] as string;
        pairs.set(r.id, { master, tier: tierOf(r, master) });
      }
    }
  });
  return pairs;
}
