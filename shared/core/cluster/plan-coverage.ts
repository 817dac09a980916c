// Slots nobody serves. Assigned only when no data can be lost: every pod answered, no node
// (reachable or failed) claims the slot, and no reachable node holds a key of it. Otherwise
// the slots are reported, not assigned.
import { refOf } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import { toRanges } from './slots.ts';
import type { PhasePlan, Problem } from './plan-types.ts';
import type { Step } from './steps.ts';

export function planCoverage(ctx: PlanContext): PhasePlan {
  const { state } = ctx;
  const problems: Problem[] = [];
  const uncovered: number[] = [];
  state.owner.forEach((o, s) => {
    if (o === null) uncovered.push(s);
  });
  if (uncovered.length === 0) return { steps: [], problems };
  const withKeys = uncovered.filter((s) =>
    ctx.topology.views.some((v) => (v.keysInSlot[s] ?? (v.keys > 0 ? 1 : 0)) > 0),
  );
  const blocked = ctx.topology.unreachable.length > 0 || withKeys.length > 0;
  const masters = ctx.masters.filter((m) => m.view);
  if (blocked || masters.length === 0) {
    problems.push({
      code: 'SlotsUncovered',
      slots: uncovered.length,
      message: `${uncovered.length} slot(s) are served by no node and are left unassigned: ${withKeys.length > 0 ? `${withKeys.length} hold keys on some node` : 'some pods did not answer and may hold their data'}`,
    });
    return { steps: [], problems };
  }
  // No data can be lost: give each uncovered run to the master with the fewest slots.
  const counts = new Map(masters.map((m) => [m.id, m.slots.length]));
  const steps: Step[] = [];
  for (const range of toRanges(uncovered)) {
    const target = [...masters].sort(
      (a, b) => (counts.get(a.id) ?? 0) - (counts.get(b.id) ?? 0) || a.id.localeCompare(b.id),
    )[0];
    if (!target) break;
    counts.set(target.id, (counts.get(target.id) ?? 0) + range.end - range.start + 1);
    steps.push({
      kind: 'addSlots',
      node: refOf(target),
      ranges: [range],
      reason: 'uncovered slots no node holds keys for: assigned, no data lost',
    });
  }
  return { steps, problems };
}
