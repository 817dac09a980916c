// Replicas: every master gets `replicasPerMaster`, each on another Kubernetes node (and zone
// when there are several), by one global pairing that keeps current pairs where it can (see
// pairReplicas). Fresh or orphaned nodes attach at once; moving a replica that is attached and
// working is disruptive (full resync), so one per plan. A placement that cannot be met is
// reported (PlacementRelaxed) and never planned again: re-pairing the result yields no step.
import { refOf, type NodeState } from './cluster-state.ts';
import { pairReplicas, zoneCount, type ReplicaCandidate } from './placement.ts';
import { nodeLabel, type PlanContext } from './plan-context.ts';
import type { PodPlacement } from './desired.ts';
import type { Problem } from './plan-types.ts';
import type { Step } from './steps.ts';

export function planReplicas(ctx: PlanContext): {
  steps: Step[];
  disruptive: Step | undefined;
  problems: Problem[];
} {
  const { state, desired } = ctx;
  const problems: Problem[] = [];
  const zones = zoneCount(desired.pods.filter((p) => !p.removing));
  const masterIds = new Set(ctx.masters.map((m) => m.id));
  const masterPods = new Map(ctx.masters.flatMap((m) => (m.pod ? [[m.id, m.pod] as const] : [])));
  const nodes = [...state.nodes.values()].filter(
    (n) =>
      n.view &&
      n.pod &&
      !n.pod.removing &&
      !masterIds.has(n.id) &&
      n.slots.length === 0 &&
      state.members.includes(n.view),
  );
  const candidates: ReplicaCandidate[] = nodes.map((n) => ({
    id: n.id,
    pod: n.pod as PodPlacement,
    current: n.role === 'replica' && n.masterId && masterIds.has(n.masterId) ? n.masterId : null,
  }));
  const seats = new Map(ctx.masters.map((m) => [m.id, desired.replicasPerMaster]));
  const pairs = pairReplicas(seats, masterPods, candidates, zones);
  const steps: Step[] = [];
  const moves: { step: Step; misplaced: boolean }[] = [];
  for (const [id, pair] of [...pairs].sort(([a], [b]) => a.localeCompare(b))) {
    const node = state.nodes.get(id) as NodeState;
    const master = state.nodes.get(pair.master) as NodeState;
    if (pair.tier !== 'zone') {
      const why =
        pair.tier === 'node'
          ? 'in the same zone: not enough zones'
          : 'on the same Kubernetes node: no other node has a free pod';
      problems.push({
        code: 'PlacementRelaxed',
        message: `${nodeLabel(node)} replicates ${nodeLabel(master)} ${why}`,
      });
    }
    const current = candidates.find((c) => c.id === id)?.current ?? null;
    if (current === pair.master || !master.address || !node.view) continue;
    // Precondition: the replica must already know its master (MEET and gossip done).
    if (!node.view.entries.some((e) => e.id === master.id && !e.handshake)) continue;
    const step: Step = {
      kind: 'replicate',
      node: refOf(node),
      master: refOf(master),
      reason: current ? 'move a replica so every master has one placed away from it' : 'give the master its replica',
    };
    const attached = current !== null && state.nodes.get(current)?.view !== undefined;
    if (!attached) {
      steps.push(step);
      continue;
    }
    const cp = masterPods.get(current);
    moves.push({
      step,
      misplaced: !cp || !node.pod || node.pod.nodeName === cp.nodeName || (zones > 1 && node.pod.zone === cp.zone),
    });
  }
  // A misplaced replica moves first: it protects its master least.
  const disruptive = [...moves].sort((a, b) => Number(b.misplaced) - Number(a.misplaced))[0]?.step;
  const short = [...seats.values()].reduce((a, b) => a + b, 0) - pairs.size;
  if (short > 0 && candidates.length === 0 && ctx.state.consistent)
    problems.push({ code: 'NotEnoughPods', message: `${short} replica(s) missing and no free pod to use` });
  return { steps, disruptive, problems };
}
