// Scale in, after the drain: remaining replicas of removed masters were re-pointed by the
// replica phase; now every remaining node forgets the removed ids at once (inside Redis' 60 s
// ban window), the removed nodes are reset, and their pods are reported removable: deleting a
// pod deletes its volume, so only once it holds no slot and no key.
import { refOf } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import type { PhasePlan, Problem } from './plan-types.ts';
import type { Step } from './steps.ts';
import { myselfOf } from './topology.ts';

export function planRemoval(ctx: PlanContext): PhasePlan & { removable: string[] } {
  const { state, desired } = ctx;
  const staying = state.members.filter((v) => !desired.pods.find((p) => p.name === v.pod)?.removing);
  const steps: Step[] = [];
  const removable: string[] = [];
  const problems: Problem[] = [];
  // A pod that does not answer cannot show its id: while the cluster lists a slot owner no pod
  // accounts for (a node that moved and is not back), that owner may be this pod.
  const unplacedOwner = [...state.nodes.values()].some((n) => !n.view && !n.pod && n.slots.length > 0);
  for (const pod of desired.pods.filter((p) => p.removing)) {
    const node = [...state.nodes.values()].find((n) => n.pod?.name === pod.name);
    const known = node !== undefined && staying.some((v) => v.entries.some((e) => e.id === node.id));
    if (!known) {
      const view = ctx.topology.views.find((v) => v.pod === pod.name);
      if (view && view.entries.length > 1)
        steps.push({ kind: 'reset', node: refOf(view), reason: 'removed from the cluster' });
      else if (view && view.keys > 0)
        problems.push({
          code: 'StrandedKeys',
          message: `${pod.name} is leaving but holds ${view.keys} key(s) outside the cluster; not deleting it`,
        });
      else if (view ? myselfOf(view).slots.length === 0 : !unplacedOwner) removable.push(pod.name);
      continue;
    }
    if (node.slots.length > 0) continue;
    if (staying.some((v) => myselfOf(v).masterId === node.id)) continue;
    const on = staying.filter((v) => v.id !== node.id).map((v) => refOf(v));
    steps.push({ kind: 'forget', id: node.id, on, reason: `${pod.name} is being removed` });
  }
  return { steps, removable, problems };
}
