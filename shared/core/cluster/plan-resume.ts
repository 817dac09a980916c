// Interrupted migrations, resumed from the slot's CURRENT owners. A failover during a migration
// drops the open-slot markers of the nodes whose role changed (a demoted master closes them, a
// promoted replica never had them), so the markers alone cannot say where a slot goes. Per slot:
// the keys went to the shards named by the markers that remain (MIGRATING on a master, IMPORTING
// with keys) and to every master that holds keys of a slot it does not own; each is taken as
// its shard's current master (the promoted replica of a failed-over target holds the moved keys).
// One such shard: the slot is finished forward from its current owner, re-opening IMPORTING and
// MIGRATING with the current ids (the migrator is idempotent at every stage). None: an import
// with no key is closed (rolled back), and a source left MIGRATING after the target took the
// slot is finished. Several, or an end that does not answer: reported, never guessed.
import { refOf, type ClusterState, type OpenSlot } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import type { PhasePlan, Problem } from './plan-types.ts';
import type { SlotMove, Step } from './steps.ts';
import { myselfOf } from './topology.ts';

export function planResume(ctx: PlanContext): PhasePlan {
  const { state } = ctx;
  const problems: Problem[] = [];
  const moves = new Map<string, { source: string; target: string; slots: number[] }>();
  const closes = new Map<string, number[]>();
  const move = (source: string, target: string, slot: number) => {
    const m = moves.get(`${source}>${target}`) ?? { source, target, slots: [] };
    m.slots.push(slot);
    moves.set(`${source}>${target}`, m);
  };
  const isMaster = (id: string) => state.nodes.get(id)?.role === 'master';
  for (const open of unfinishedSlots(state)) {
    const { slot } = open;
    const owner = state.owner[slot] ?? null;
    const keysOn = (id: string) => state.nodes.get(id)?.view?.keysInSlot[slot];
    const migrating = open.migrating.filter((m) => isMaster(m.node));
    const importing = open.importing.filter((i) => isMaster(i.node));
    const ends = new Set(
      [
        ...migrating.map((m) => currentMaster(state, m.to)),
        ...importing.filter((i) => keysOn(i.node) !== 0).map((i) => i.node),
        ...strayHolders(state, slot),
      ].filter((id) => id !== owner),
    );
    const target = [...ends][0];
    if (ends.size > 1 || (target && owner === null)) {
      problems.push({
        code: 'StrandedKeys',
        message: `slot ${slot} has keys on ${[...ends].map((id) => id.slice(0, 8)).join(', ')} and ${owner ? `is owned by ${owner.slice(0, 8)}` : 'no owner'}: not guessing where it goes`,
        slots: 1,
      });
      continue;
    }
    if (target && owner) {
      if (!state.nodes.get(owner)?.view || !state.nodes.get(target)?.view) {
        problems.push({
          code: 'OpenSlotBlocked',
          message: `slot ${slot} is half moved from ${owner.slice(0, 8)} to ${target.slice(0, 8)} but one end is not reachable`,
          slots: 1,
        });
      } else move(owner, target, slot);
      continue;
    }
    for (const i of importing) if (keysOn(i.node) === 0) closes.set(i.node, [...(closes.get(i.node) ?? []), slot]);
    // The target took the slot but the source was not told yet.
    for (const m of migrating)
      if (m.node !== owner && owner && currentMaster(state, m.to) === owner && state.nodes.get(m.node)?.view)
        move(m.node, owner, slot);
  }
  const steps: Step[] = [];
  for (const [id, slots] of closes) {
    const node = state.nodes.get(id);
    if (node?.address)
      steps.push({ kind: 'closeSlots', node: refOf(node), slots, reason: 'roll back an import that never started' });
  }
  if (moves.size > 0) {
    const list: SlotMove[] = [...moves.values()].map((m) => ({
      source: refOf(state.nodes.get(m.source)!),
      target: refOf(state.nodes.get(m.target)!),
      slots: m.slots,
    }));
    steps.push({
      kind: 'migrate',
      moves: list,
      masters: mastersOf(ctx),
      reason: "finish an interrupted migration from the slots' current owners",
    });
  }
  return { steps, problems };
}

/** The master of `id`'s shard now: itself, or the master it replicates since a failover. */
function currentMaster(state: ClusterState, id: string): string {
  const node = state.nodes.get(id);
  return node?.role === 'replica' && node.masterId ? node.masterId : id;
}

/** Masters holding keys of an owned slot that neither they nor the owner's claim gives them. */
function strayHolders(state: ClusterState, slot: number): string[] {
  const owner = state.owner[slot];
  if (!owner) return [];
  return state.members
    .filter(
      (v) =>
        v.id !== owner &&
        myselfOf(v).role === 'master' &&
        (v.keysInSlot[slot] ?? 0) > 0 &&
        !myselfOf(v).slots.some((r) => r.start <= slot && slot <= r.end),
    )
    .map((v) => v.id);
}

/** Open slots, and owned slots whose keys a master that does not own them holds. */
function unfinishedSlots(state: ClusterState): OpenSlot[] {
  const open = new Map(state.openSlots.map((o) => [o.slot, o]));
  for (const v of state.members) {
    for (const s of Object.keys(v.keysInSlot).map(Number)) {
      if (!open.has(s) && strayHolders(state, s).length > 0) open.set(s, { slot: s, migrating: [], importing: [] });
    }
  }
  return [...open.values()].sort((a, b) => a.slot - b.slot);
}

/** Every reachable master of the cluster: told the new owner after each slot move. */
export function mastersOf(ctx: PlanContext) {
  return ctx.state.members.filter((v) => v.replication.role === 'master').map((v) => refOf(v));
}
