// Interrupted migrations, found from open slots (each node's own [slot->-id] / [slot-<-id]):
// a slot migrating from S to T is finished forward (the migrator is idempotent at every stage);
// a slot only importing, with no key on the importer, is closed (rolled back). Anything else
// waits for the missing end or is reported, never guessed.
import { refOf } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import type { SlotMove, Step } from './steps.ts';

export function planResume(ctx: PlanContext): Step[] {
  const { state } = ctx;
  const moves = new Map<string, { source: string; target: string; slots: number[] }>();
  const closes = new Map<string, number[]>();
  for (const open of state.openSlots) {
    const m = open.migrating[0];
    if (m) {
      const source = state.nodes.get(m.node);
      const target = state.nodes.get(m.to);
      if (!source?.view || !target?.view) {
        ctx.problems.push({ code: 'OpenSlotBlocked', message: `slot ${open.slot} is migrating from ${m.node.slice(0, 8)} to ${m.to.slice(0, 8)} but one end is not reachable`, slots: 1 });
        continue;
      }
      const key = `${m.node}>${m.to}`;
      const move = moves.get(key) ?? { source: m.node, target: m.to, slots: [] };
      move.slots.push(open.slot);
      moves.set(key, move);
      continue;
    }
    for (const i of open.importing) {
      const importer = state.nodes.get(i.node);
      const keys = importer?.view?.keysInSlot[open.slot];
      const source = state.nodes.get(i.from);
      if (keys === 0) closes.set(i.node, [...(closes.get(i.node) ?? []), open.slot]);
      else if (keys !== undefined && source?.view && state.owner[open.slot] === i.from) {
        const key = `${i.from}>${i.node}`;
        const move = moves.get(key) ?? { source: i.from, target: i.node, slots: [] };
        move.slots.push(open.slot);
        moves.set(key, move);
      } else {
        ctx.problems.push({ code: 'StrandedKeys', message: `slot ${open.slot} is importing on ${i.node.slice(0, 8)} (${keys ?? 'unknown'} keys) but its source is not migrating it`, slots: 1 });
      }
    }
  }
  const steps: Step[] = [];
  for (const [id, slots] of closes) {
    const node = state.nodes.get(id);
    if (node?.address) steps.push({ kind: 'closeSlots', node: refOf(node), slots, reason: 'roll back an import that never started' });
  }
  if (moves.size > 0) {
    const list: SlotMove[] = [...moves.values()].map((m) => ({
      source: refOf(state.nodes.get(m.source)!), target: refOf(state.nodes.get(m.target)!), slots: m.slots,
    }));
    steps.push({ kind: 'migrate', moves: list, masters: mastersOf(ctx), reason: 'finish an interrupted migration' });
  }
  return steps;
}

/** Every reachable master of the cluster: told the new owner after each slot move. */
export function mastersOf(ctx: PlanContext) {
  return ctx.state.members.filter((v) => v.replication.role === 'master').map((v) => refOf(v));
}
