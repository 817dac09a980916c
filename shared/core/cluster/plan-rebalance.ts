// Even slots over the designated masters; drained masters give everything away. Senders and
// receivers are paired largest to largest, so 3 -> 6 and 6 -> 3 become three independent
// pairs the migrator runs in parallel. Each sender gives its highest slots (ranges stay tidy).
import { refOf, type NodeState } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import { mastersOf } from './plan-resume.ts';
import { evenCounts } from './slots.ts';
import type { SlotMove, Step } from './steps.ts';

export interface Rebalance {
  readonly step: Step | undefined;
  /** Slots off their target owner overall (drains included). */
  readonly slotsToMove: number;
}

export function planRebalance(ctx: PlanContext, maxSlots = Number.POSITIVE_INFINITY): Rebalance {
  const { masters, drain, state } = ctx;
  if (masters.length === 0) return { step: undefined, slotsToMove: 0 };
  const targets = new Map<string, number>();
  const ordered = [...masters].sort((a, b) => b.slots.length - a.slots.length || a.id.localeCompare(b.id));
  evenCounts(ordered.length).forEach((count, i) => targets.set((ordered[i] as NodeState).id, count));
  const senders: { node: NodeState; excess: number }[] = [];
  const receivers: { node: NodeState; deficit: number }[] = [];
  let offBalance = false;
  for (const node of state.nodes.values()) {
    if (drain.has(node.id) && node.slots.length > 0) {
      senders.push({ node, excess: node.slots.length });
      offBalance = true;
      continue;
    }
    const target = targets.get(node.id);
    if (target === undefined) continue;
    const diff = node.slots.length - target;
    if (Math.abs(diff) > Math.max(1, target * ctx.options.rebalanceThreshold)) offBalance = true;
    if (diff > 0) senders.push({ node, excess: diff });
    if (diff < 0) receivers.push({ node, deficit: -diff });
  }
  const slotsToMove = senders.reduce((n, s) => n + s.excess, 0);
  if (!offBalance || slotsToMove === 0) return { step: undefined, slotsToMove: 0 };
  senders.sort((a, b) => b.excess - a.excess || a.node.id.localeCompare(b.node.id));
  receivers.sort((a, b) => b.deficit - a.deficit || a.node.id.localeCompare(b.node.id));
  const moves: SlotMove[] = [];
  let budget = maxSlots;
  let r = 0;
  for (const sender of senders) {
    const pool = [...sender.node.slots].sort((a, b) => b - a);
    while (sender.excess > 0 && r < receivers.length && budget > 0) {
      const receiver = receivers[r] as { node: NodeState; deficit: number };
      const n = Math.min(sender.excess, receiver.deficit, budget);
      const slots = pool.splice(0, n).sort((a, b) => a - b);
      moves.push({ source: refOf(sender.node), target: refOf(receiver.node), slots });
      sender.excess -= n;
      receiver.deficit -= n;
      budget -= n;
      if (receiver.deficit === 0) r++;
    }
  }
  const reason = drain.size > 0 ? 'drain masters being removed' : 'even out slots across masters';
  return {
    step: moves.length > 0 ? { kind: 'migrate', moves, masters: mastersOf(ctx), reason } : undefined,
    slotsToMove,
  };
}
