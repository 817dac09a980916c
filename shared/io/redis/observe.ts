// observe(): asks every pod's Redis what it sees (CLUSTER NODES, CLUSTER INFO, INFO
// replication, DBSIZE, cluster-node-timeout, min-replicas-to-write), then counts keys of open
// and uncovered slots on the nodes that hold keys, so the planner can tell a safe rollback from
// a lossy one, and finds keys a master holds in slots it does not own (left by failovers
// during a migration).
import type { AnnouncedAddress, PodPlacement } from '../../core/cluster/desired.ts';
import { parseClusterNodes } from '../../core/cluster/parse-cluster-nodes.ts';
import { parseClusterInfo, parseReplicationInfo } from '../../core/cluster/parse-info.ts';
import { fromRanges, SLOT_COUNT } from '../../core/cluster/slots.ts';
import type { NodeView, Topology, UnreachablePod } from '../../core/cluster/topology.ts';
import { readFileSync } from 'node:fs';
import { command, pipeline, type NodePool } from './connection.ts';

const keysBySlot = readFileSync(new URL('./lua/keys-by-slot-0.lua', import.meta.url), 'utf8');

type Clock = () => number;

/** CONFIG GET cluster-announce-* as the address a node announces, or null when it announces none. */
export function announcingOf(reply: readonly string[]): AnnouncedAddress | null {
  const config = new Map<string, string>();
  for (let i = 0; i + 1 < reply.length; i += 2) config.set(String(reply[i]), String(reply[i + 1]));
  const ip = config.get('cluster-announce-ip') ?? '';
  const port = Number(config.get('cluster-announce-port') ?? 0);
  const busPort = Number(config.get('cluster-announce-bus-port') ?? 0);
  return ip === '' && port === 0 && busPort === 0 ? null : { ip, port, busPort };
}

export async function observe(
  pods: readonly PodPlacement[],
  pool: NodePool,
  clock: Clock = Date.now,
): Promise<Topology> {
  const unreachable: UnreachablePod[] = [];
  const raw = await Promise.all(
    pods.map(async (pod) => {
      try {
        const replies = await pipeline(pool, pod.address, 'observe', [
          ['CLUSTER', 'NODES'],
          ['CLUSTER', 'INFO'],
          ['INFO', 'replication'],
          ['DBSIZE'],
          ['CONFIG', 'GET', 'cluster-node-timeout', 'min-replicas-to-write'],
          // Always: a node may still announce what external access, now off, gave it.
          ['CONFIG', 'GET', 'cluster-announce-*'],
        ]);
        const failed = replies.find(([e]) => e);
        if (failed?.[0]) throw failed[0];
        const [nodes, info, replication, keys, settings, announce] = replies.map(([, v]) => v);
        const config = new Map<string, string>();
        const pairs = (settings as string[] | undefined) ?? [];
        for (let i = 0; i + 1 < pairs.length; i += 2) config.set(String(pairs[i]), String(pairs[i + 1]));
        const entries = parseClusterNodes(String(nodes));
        const me = entries.find((e) => e.myself);
        if (!me) throw new Error('CLUSTER NODES has no myself line');
        const view: NodeView = {
          pod: pod.name,
          address: pod.address,
          id: me.id,
          entries,
          info: parseClusterInfo(String(info)),
          replication: parseReplicationInfo(String(replication)),
          keys: Number(keys),
          nodeTimeoutMs: Number(config.get('cluster-node-timeout') ?? 15000),
          minReplicasToWrite: Number(config.get('min-replicas-to-write') ?? 0),
          keysInSlot: {},
          ...(pod.announced ? { known: pod.announced } : {}),
          announcing: announcingOf(announce as string[]),
        };
        return view;
      } catch (error) {
        unreachable.push({
          pod: pod.name,
          address: pod.address,
          reason: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      }
    }),
  );
  const views = raw.filter((v): v is NodeView => v !== undefined);

  // Slots worth counting keys of: open anywhere, or assigned to nobody.
  const assigned = new Uint8Array(SLOT_COUNT);
  const interesting = new Set<number>();
  for (const v of views) {
    for (const e of v.entries) for (const r of e.slots) for (let s = r.start; s <= r.end; s++) assigned[s] = 1;
    const me = v.entries.find((e) => e.myself);
    for (const m of me?.migrating ?? []) interesting.add(m.slot);
    for (const i of me?.importing ?? []) interesting.add(i.slot);
  }
  assigned.forEach((a, s) => {
    if (!a) interesting.add(s);
  });
  const slots = [...interesting];
  const counted = await Promise.all(
    views.map(async (v) => {
      const keysInSlot: Record<number, number> = await strayKeys(pool, v);
      if (slots.length === 0) return { ...v, keysInSlot };
      if (v.keys === 0) {
        for (const s of slots) keysInSlot[s] = 0;
        return { ...v, keysInSlot };
      }
      try {
        const replies = await pipeline(
          pool,
          v.address,
          'count keys',
          slots.map((s) => ['CLUSTER', 'COUNTKEYSINSLOT', s]),
        );
        replies.forEach(([e, n], i) => {
          if (!e) keysInSlot[slots[i] as number] = Number(n);
        });
      } catch {
        /* counts stay unknown: the planner treats unknown as "may hold keys" */
      }
      return { ...v, keysInSlot };
    }),
  );
  return { views: counted, unreachable, observedAt: clock() };
}

/** Keys a master holds in slots its own view gives to another node (an empty map otherwise). */
async function strayKeys(pool: NodePool, view: NodeView): Promise<Record<number, number>> {
  const me = view.entries.find((e) => e.myself);
  if (!me || me.role !== 'master' || view.keys === 0) return {};
  const owned = new Set(fromRanges(me.slots));
  const stray: Record<number, number> = {};
  try {
    const flat = await command<number[]>(pool, view.address, 'keys by slot', ['EVAL', keysBySlot, 0]);
    for (let i = 0; i + 1 < flat.length; i += 2)
      if (!owned.has(Number(flat[i]))) stray[Number(flat[i])] = Number(flat[i + 1]);
  } catch {
    /* unknown: the planner sees no stray key on this node this pass */
  }
  return stray;
}
