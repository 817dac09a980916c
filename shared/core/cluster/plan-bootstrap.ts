// A fresh cluster: no slot assigned anywhere, no key anywhere. Distinct config epochs first
// (Redis accepts SET-CONFIG-EPOCH only before a node knows others), even slot ranges, then
// MEET everyone from the first master. Replicas attach in a later pass, once they know it.
// Never when a pod already belongs to another cluster.
import { chooseMasters } from './placement.ts';
import { refOf } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import type { PhasePlan, Problem } from './plan-types.ts';
import { evenRanges } from './slots.ts';
import type { Step } from './steps.ts';
import { addressKey, knownAddress, type NodeView } from './topology.ts';
import { busPortOf } from './plan-membership.ts';

export function isFresh(ctx: PlanContext): boolean {
  return ctx.state.owner.every((o) => o === null) && ctx.topology.views.every((v) => v.keys === 0);
}

export function planBootstrap(ctx: PlanContext): PhasePlan<Step[] | 'wait'> {
  // A pod that knows nodes no pod of ours carries was met by another cluster: bootstrapping
  // would pull that cluster's nodes into this one.
  const ours = new Set(
    ctx.desired.pods.flatMap((p) => [addressKey(p.address), ...(p.announced ? [addressKey(p.announced)] : [])]),
  );
  const problems: Problem[] = [];
  for (const view of ctx.topology.views) {
    const others = view.entries.filter((e) => !e.myself && !(e.address && ours.has(addressKey(e.address))));
    if (others.length > 0)
      problems.push({
        code: 'ForeignCluster',
        message: `${view.pod} knows ${others.length} node(s) no pod of this cluster carries (it is in another cluster): not bootstrapping`,
      });
  }
  if (problems.length > 0) return { steps: 'wait', problems };
  const wanted = ctx.desired.pods.filter((p) => !p.removing);
  const viewOf = (name: string) => ctx.topology.views.find((v) => v.pod === name);
  if (wanted.some((p) => !viewOf(p.name))) return { steps: 'wait', problems };
  const masterPods = chooseMasters(wanted, [], ctx.desired.masters);
  const masters = masterPods.map((p) => viewOf(p.name) as NodeView);
  const ranges = evenRanges(masters.length);
  const steps: Step[] = [];
  masters.forEach((view, i) => {
    if (view.entries.length === 1 && view.info.myEpoch === 0)
      steps.push({ kind: 'setConfigEpoch', node: refOf(view), epoch: i + 1 });
  });
  masters.forEach((view, i) => {
    const range = ranges[i];
    if (range)
      steps.push({ kind: 'addSlots', node: refOf(view), ranges: [range], reason: 'bootstrap: even slot ranges' });
  });
  const first = masters[0];
  if (first) {
    for (const pod of wanted) {
      const view = viewOf(pod.name) as NodeView;
      if (view !== first && !first.entries.some((e) => e.id === view.id))
        steps.push({
          kind: 'meet',
          from: refOf(first),
          to: knownAddress(view),
          ...busPortOf(view),
          reason: 'bootstrap: join the cluster',
        });
    }
  }
  return { steps, problems };
}
