// Where masters and replicas go: masters spread over Kubernetes nodes (and zones), each replica
// on another node than its master, and in another zone when the pods span several zones.
import type { PodPlacement } from './desired.ts';

export function zoneCount(pods: readonly PodPlacement[]): number {
  return new Set(pods.map((p) => p.zone ?? '')).size;
}

/** May `replica` serve `master`? Never on the same node; not in the same zone when zones > 1. */
export function canReplicate(replica: PodPlacement, master: PodPlacement, zones: number): boolean {
  if (replica.nodeName === master.nodeName) return false;
  return zones <= 1 || (replica.zone ?? '') !== (master.zone ?? '');
}

/**
 * Picks `count` more masters from candidates, greedily: fewest masters already on the same
 * zone, then on the same node, then by name. Greedy picks are stable when unpicked candidates
 * disappear (become replicas) between passes, so every pass designates the same pods.
 */
export function chooseMasters(candidates: readonly PodPlacement[], existing: readonly PodPlacement[], count: number): PodPlacement[] {
  const chosen: PodPlacement[] = [];
  const pool = [...candidates].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  while (chosen.length < count && pool.length > 0) {
    const taken = [...existing, ...chosen];
    const score = (p: PodPlacement) => [taken.filter((t) => (t.zone ?? '') === (p.zone ?? '')).length, taken.filter((t) => t.nodeName === p.nodeName).length];
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

export interface ReplicaAssignment {
  readonly replica: string;
  readonly master: string;
  /** Placement rule had to be relaxed from zone to node (not enough zones). */
  readonly relaxed: boolean;
}

/**
 * Matches free replicas to masters that need more (bipartite matching, Kuhn's augmenting
 * paths), first with the zone rule, then, for what is left, with the node rule alone.
 * `need` maps a master to how many more replicas it wants.
 */
export function assignReplicas(
  need: ReadonlyMap<string, number>,
  masters: ReadonlyMap<string, PodPlacement>,
  free: ReadonlyMap<string, PodPlacement>,
  zones: number,
): ReplicaAssignment[] {
  const result: ReplicaAssignment[] = [];
  const remaining = new Map(need);
  let pool = new Map(free);
  for (const relaxed of [false, true]) {
    if (relaxed && zones <= 1) break;
    const seats: string[] = [];
    for (const [master, n] of [...remaining].sort(([a], [b]) => a.localeCompare(b))) for (let i = 0; i < n; i++) seats.push(master);
    const replicas = [...pool.keys()].sort();
    const seatOf = new Map<string, number>();
    const holder = new Map<number, string>();
    const fits = (r: string, seat: number) => {
      const rp = pool.get(r);
      const mp = masters.get(seats[seat] ?? '');
      return !!rp && !!mp && canReplicate(rp, mp, relaxed ? 1 : zones);
    };
    const tryAssign = (r: string, visited: Set<number>): boolean => {
      for (let seat = 0; seat < seats.length; seat++) {
        if (visited.has(seat) || !fits(r, seat)) continue;
        visited.add(seat);
        const other = holder.get(seat);
        if (other === undefined || tryAssign(other, visited)) { holder.set(seat, r); seatOf.set(r, seat); return true; }
      }
      return false;
    };
    for (const r of replicas) tryAssign(r, new Set());
    for (const [seat, r] of holder) {
      const master = seats[seat] as string;
      result.push({ replica: r, master, relaxed });
      remaining.set(master, (remaining.get(master) ?? 1) - 1);
    }
    pool = new Map([...pool].filter(([r]) => !seatOf.has(r)));
  }
  return result;
}
