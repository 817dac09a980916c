// Replicas: every master gets `replicasPerMaster`, each on another Kubernetes node (and zone
// when there are several). Fresh or orphaned nodes attach at once; moving a replica that is
// attached and working is disruptive (full resync), so one per plan.
import { refOf, type NodeState } from './cluster-state.ts';
import { assignReplicas, canReplicate, zoneCount } from './placement.ts';
import { nodeLabel, type PlanContext } from './plan-context.ts';
import type { PodPlacement } from './desired.ts';
import type { Step } from './steps.ts';

export function planReplicas(ctx: PlanContext): { steps: Step[]; disruptive: Step | undefined } {
  const { state, desired } = ctx;
  const zones = zoneCount(desired.pods.filter((p) => !p.removing));
  const masterIds = new Set(ctx.masters.map((m) => m.id));
  const masterPods = new Map(ctx.masters.flatMap((m) => (m.pod ? [[m.id, m.pod] as const] : [])));
  const candidates = [...state.nodes.values()].filter((n) =>
    n.view && n.pod && !n.pod.removing && !masterIds.has(n.id) && n.slots.length === 0 && state.members.includes(n.view));
  const need = new Map(ctx.masters.map((m) => [m.id, desired.replicasPerMaster]));
  const free = new Map<string, PodPlacement>();
  const misplaced: NodeState[] = [];
  for (const c of candidates) {
    const current = c.role === 'replica' ? c.masterId : null;
    const mp = current ? masterPods.get(current) : undefined;
    if (current && mp && (need.get(current) ?? 0) > 0) {
      if (canReplicate(c.pod as PodPlacement, mp, zones)) { need.set(current, (need.get(current) ?? 0) - 1); continue; }
      misplaced.push(c);
    }
    free.set(c.id, c.pod as PodPlacement);
  }
  const assignments = assignReplicas(need, masterPods, free, zones);
  const steps: Step[] = [];
  let disruptive: Step | undefined;
  for (const a of assignments) {
    const node = state.nodes.get(a.replica) as NodeState;
    const master = state.nodes.get(a.master) as NodeState;
    if (!master.address || !node.view) continue;
    if (a.relaxed) ctx.problems.push({ code: 'PlacementRelaxed', message: `${nodeLabel(node)} replicates ${nodeLabel(master)} in the same zone: not enough zones` });
    // Precondition: the replica must already know its master (MEET and gossip done).
    if (!node.view.entries.some((e) => e.id === master.id && !e.handshake)) continue;
    const step: Step = { kind: 'replicate', node: refOf(node), master: refOf(master), reason: 'give the master its replica' };
    const attached = node.role === 'replica' && node.masterId !== null && masterIds.has(node.masterId) && state.nodes.get(node.masterId)?.view !== undefined;
    if (attached || misplaced.includes(node)) disruptive ??= step;
    else steps.push(step);
  }
  for (const m of misplaced) {
    if (!assignments.some((a) => a.replica === m.id)) ctx.problems.push({ code: 'PlacementViolated', message: `${nodeLabel(m)} runs beside its master and no other master can take it` });
  }
  const short = [...need.values()].reduce((a, b) => a + b, 0) - assignments.length;
  if (short > 0 && candidates.length === 0 && ctx.state.consistent) ctx.problems.push({ code: 'NotEnoughPods', message: `${short} replica(s) missing and no free pod to use` });
  return { steps, disruptive };
}

