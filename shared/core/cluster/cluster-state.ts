// Folds the per-node views of a Topology into one picture: which ids exist, where they are,
// who owns each slot (the claim with the highest config epoch wins, as in Redis), whether the
// views agree, open slots, failed nodes, nodes the cluster does not know yet.
import type { DesiredCluster, PodPlacement } from './desired.ts';
import { SLOT_COUNT } from './slots.ts';
import {
  addressKey,
  knownAddress,
  myselfOf,
  type Address,
  type NodeEntry,
  type NodeView,
  type Topology,
} from './topology.ts';

export interface NodeState {
  readonly id: string;
  readonly address: Address | null;
  readonly pod: PodPlacement | undefined;
  readonly view: NodeView | undefined;
  readonly role: 'master' | 'replica' | 'unknown';
  readonly masterId: string | null;
  /** Slots this id owns by consensus. */
  readonly slots: readonly number[];
  /** Some view in the cluster marks it FAIL, or it is unreachable and marked PFAIL. */
  readonly failed: boolean;
  /** now minus the latest pong any view received from it (0 when reachable). */
  readonly silentForMs: number;
}

export interface OpenSlot {
  readonly slot: number;
  readonly migrating: readonly { node: string; to: string }[];
  readonly importing: readonly { node: string; from: string }[];
}

export interface ClusterState {
  readonly nodes: ReadonlyMap<string, NodeState>;
  /** Owner id per slot, null when no view assigns it. */
  readonly owner: readonly (string | null)[];
  /** Every view of the cluster agrees with `owner` and knows every member. */
  readonly consistent: boolean;
  /** Why the views do not agree (the first disagreement found), for status and errors. */
  readonly disagreement: string | undefined;
  /** Views of reachable pods inside the cluster (known to the anchor). */
  readonly members: readonly NodeView[];
  /** Reachable pods the cluster does not know (fresh, or forgotten). */
  readonly strangers: readonly NodeView[];
  /** Members that some view lists under another address. */
  readonly staleAddresses: readonly {
    id: string;
    /** Where the cluster must know it (knownAddress), and its bus port when announced. */
    address: Address;
    busPort?: number;
    seenAs: Address;
    by: string;
  }[];
  readonly openSlots: readonly OpenSlot[];
  readonly anchor: NodeView | undefined;
}

export function toClusterState(desired: DesiredCluster, topology: Topology, now: number): ClusterState {
  const views = topology.views;
  // The anchor is the best-connected pod that stays (a removed pod may still know everyone).
  const removing = new Set(desired.pods.filter((p) => p.removing).map((p) => p.name));
  const staying = views.filter((v) => !removing.has(v.pod));
  const anchor = [...(staying.length > 0 ? staying : views)].sort(
    (a, b) =>
      b.entries.length - a.entries.length || b.info.slotsAssigned - a.info.slotsAssigned || a.id.localeCompare(b.id),
  )[0];
  const known = new Set(anchor ? anchor.entries.filter((e) => !e.handshake).map((e) => e.id) : []);
  const clustered = anchor && anchor.entries.length > 1;
  const members = views.filter((v) => v === anchor || (clustered && known.has(v.id)));
  const strangers = views.filter((v) => !members.includes(v));

  // 1: the slot owners, highest config epoch first, the owner's own claim breaking ties
  const owner: (string | null)[] = new Array<string | null>(SLOT_COUNT).fill(null);
  const best = new Array<number>(SLOT_COUNT).fill(-1);
  for (const view of views) {
    for (const e of view.entries) {
      const weight = e.configEpoch * 2 + (e.myself ? 1 : 0);
      for (const r of e.slots)
        for (let s = r.start; s <= r.end; s++)
          if (weight > (best[s] ?? -1)) {
            best[s] = weight;
            owner[s] = e.id;
          }
    }
  }

  // 2: do members agree (same owners, same node set)?
  const disagreements: string[] = members.length > 0 ? [] : ['no pod is in the cluster'];
  const short = (id: string | null | undefined) => (id ? id.slice(0, 8) : 'nobody');
  for (const view of members.filter((v) => !removing.has(v.pod))) {
    const seen = new Array<string | null>(SLOT_COUNT).fill(null);
    for (const e of view.entries) for (const r of e.slots) for (let s = r.start; s <= r.end; s++) seen[s] = e.id;
    const differ = seen.findIndex((id, s) => id !== owner[s]);
    if (differ >= 0)
      disagreements.push(
        `${view.pod} places slot ${differ} at ${short(seen[differ])}, the cluster at ${short(owner[differ])}`,
      );
    const ids = new Set(view.entries.filter((e) => !e.handshake).map((e) => e.id));
    const missing = [...known].filter((id) => !ids.has(id));
    const extra = [...ids].filter((id) => !known.has(id));
    if (missing.length > 0 || extra.length > 0)
      disagreements.push(
        `${view.pod} ${[
          ...(missing.length > 0 ? [`does not know ${missing.map(short).join(', ')}, which ${anchor?.pod} lists`] : []),
          ...(extra.length > 0 ? [`knows ${extra.map(short).join(', ')}, which ${anchor?.pod} does not`] : []),
        ].join(' and ')}`,
      );
    // A replica's markers are void (Redis closes them on demotion; SETSLOT refuses replicas).
    const me = myselfOf(view);
    if (me.role === 'master' && (me.migrating.length > 0 || me.importing.length > 0))
      disagreements.push(
        `${view.pod} has slots open (${me.migrating.length} migrating, ${me.importing.length} importing)`,
      );
  }
  const consistent = disagreements.length === 0;

  // 3: every id any member knows, merged with what reachable pods say about themselves
  const byPodAddress = new Map(
    desired.pods.flatMap((p) => [
      [addressKey(p.address), p] as const,
      ...(p.announced ? [[addressKey(p.announced), p] as const] : []),
    ]),
  );
  const viewOf = new Map(views.map((v) => [v.id, v]));
  const nodes = new Map<string, NodeState>();
  const slotsOf = new Map<string, number[]>();
  owner.forEach((id, s) => {
    if (id) {
      const list = slotsOf.get(id) ?? [];
      list.push(s);
      slotsOf.set(id, list);
    }
  });
  const entriesById = new Map<string, NodeEntry[]>();
  for (const view of [...members, ...strangers]) {
    for (const e of view.entries) if (!e.handshake) entriesById.set(e.id, [...(entriesById.get(e.id) ?? []), e]);
  }
  for (const [id, entries] of entriesById) {
    const view = viewOf.get(id);
    const self = view ? myselfOf(view) : undefined;
    const address = view ? view.address : (entries.find((e) => e.address)?.address ?? null);
    const others = entries.filter((e) => !e.myself);
    const failed = !view && others.some((e) => e.failing === 'fail' || (e.failing === 'pfail' && !e.connected));
    const lastPong = Math.max(0, ...others.map((e) => e.pongRecvMs));
    const claimed = self ?? others[0] ?? entries[0];
    nodes.set(id, {
      id,
      address,
      view,
      pod: view
        ? desired.pods.find((p) => p.name === view.pod)
        : address
          ? byPodAddress.get(addressKey(address))
          : undefined,
      role: claimed?.role ?? 'unknown',
      masterId: claimed?.masterId ?? null,
      slots: slotsOf.get(id) ?? [],
      failed,
      silentForMs: view ? 0 : lastPong > 0 ? Math.max(0, now - lastPong) : Number.POSITIVE_INFINITY,
    });
  }

  // 4: stale addresses: a reachable member listed elsewhere at another address
  const staleAddresses: ClusterState['staleAddresses'][number][] = [];
  for (const view of members) {
    for (const e of view.entries) {
      const target = viewOf.get(e.id);
      const known = target ? knownAddress(target) : undefined;
      if (!e.myself && target && known && e.address && addressKey(e.address) !== addressKey(known)) {
        staleAddresses.push({
          id: e.id,
          address: known,
          ...(target.known ? { busPort: target.known.busPort } : {}),
          seenAs: e.address,
          by: view.id,
        });
      }
    }
  }

  // 5: open slots, from each node's own line
  const open = new Map<
    number,
    { migrating: { node: string; to: string }[]; importing: { node: string; from: string }[] }
  >();
  for (const view of views) {
    const me = myselfOf(view);
    for (const m of me.migrating) {
      const o = open.get(m.slot) ?? { migrating: [], importing: [] };
      o.migrating.push({ node: me.id, to: m.to });
      open.set(m.slot, o);
    }
    for (const i of me.importing) {
      const o = open.get(i.slot) ?? { migrating: [], importing: [] };
      o.importing.push({ node: me.id, from: i.from });
      open.set(i.slot, o);
    }
  }
  const openSlots = [...open].sort(([a], [b]) => a - b).map(([slot, o]) => ({ slot, ...o }));
  return {
    nodes,
    owner,
    consistent,
    disagreement: disagreements[0],
    members,
    strangers,
    staleAddresses,
    openSlots,
    anchor,
  };
}

export function refOf(node: NodeState | NodeView): { id: string; address: Address; pod?: string } {
  if ('entries' in node) return { id: node.id, address: node.address, pod: node.pod };
  if (!node.address) throw new Error(`node ${node.id} has no known address`);
  return {
    id: node.id,
    address: node.address,
    ...(node.pod ? { pod: node.pod.name } : node.view ? { pod: node.view.pod } : {}),
  };
}
