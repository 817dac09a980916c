// The restart guard (resources/redis-command.ts): a master that came back starts with
// min-replicas-to-write 1, as it may have been replaced while it was away and would otherwise
// take writes that its demotion then throws away. The guard is lifted (the spec's own value set
// again) once what the node is no longer depends on news it has not heard yet:
//   - it is a replica: it takes no write, and a later promotion comes with a fresh election;
//   - it is a master with no slot: it serves nothing;
//   - it is a master whose slots every reachable node gives to it, no other node claims any of
//     them, and the reachable nodes include a majority of the slot-owning masters, so no
//     election can have handed them to another node behind the operator's back.
// Until then a real master still takes writes as soon as its replica follows it again.
import { fromRanges, toRanges, type SlotRange } from './slots.ts';
import { myselfOf, type Address, type NodeView, type Topology } from './topology.ts';

export interface GuardLift {
  readonly pod: string;
  readonly address: Address;
  readonly why: string;
}

export function guardsToLift(topology: Topology, wanted: number): GuardLift[] {
  const lifts: GuardLift[] = [];
  for (const view of topology.views) {
    if ((view.minReplicasToWrite ?? 0) <= wanted) continue;
    const why = safeBecause(view, topology);
    if (why) lifts.push({ pod: view.pod, address: view.address, why });
  }
  return lifts;
}

function safeBecause(view: NodeView, topology: Topology): string | undefined {
  const me = myselfOf(view);
  if (me.role !== 'master') return 'it is a replica';
  if (me.slots.length === 0) return 'it is a master with no slot';
  const mine = slotsKey(me.slots);
  const others = topology.views.filter((v) => v !== view);
  const owned = new Set(fromRanges(me.slots));
  const claimedElsewhere = others.some((v) => {
    const other = myselfOf(v);
    return other.role === 'master' && fromRanges(other.slots).some((s) => owned.has(s));
  });
  if (claimedElsewhere) return undefined;
  const agreed = others.every((v) => {
    const entry = v.entries.find((e) => e.id === view.id);
    return entry?.role === 'master' && slotsKey(entry.slots) === mine;
  });
  if (!agreed) return undefined;
  // The slot-owning masters as this node knows them, and how many of them answered.
  const owners = view.entries.filter((e) => e.role === 'master' && e.slots.length > 0).map((e) => e.id);
  const reachable = new Set(topology.views.map((v) => v.id));
  const seen = owners.filter((id) => reachable.has(id)).length;
  if (seen * 2 <= owners.length) return undefined;
  return 'every reachable node gives it its slots';
}

function slotsKey(ranges: readonly SlotRange[]): string {
  return toRanges(fromRanges(ranges))
    .map((r) => `${r.start}-${r.end}`)
    .join(',');
}
