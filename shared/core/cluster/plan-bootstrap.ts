// A fresh cluster: no slot assigned anywhere, no key anywhere. Distinct config epochs first
// (Redis accepts SET-CONFIG-EPOCH only before a node knows others), even slot ranges, then
// MEET everyone from the first master. Replicas attach in a later pass, once they know it.
import { chooseMasters } from './placement.ts';
import { refOf } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import { evenRanges } from './slots.ts';
import type { Step } from './steps.ts';
import type { NodeView } from './topology.ts';

export function isFresh(ctx: PlanContext): boolean {
  return ctx.state.owner.every((o) => o === null) && ctx.topology.views.every((v) => v.keys === 0);
}

export function planBootstrap(ctx: PlanContext): Step[] | 'wait' {
  const wanted = ctx.desired.pods.filter((p) => !p.removing);
  const viewOf = (name: string) => ctx.topology.views.find((v) => v.pod === name);
  if (wanted.some((p) => !viewOf(p.name))) return 'wait';
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
        steps.push({ kind: 'meet', from: refOf(first), to: view.address, reason: 'bootstrap: join the cluster' });
    }
  }
  return steps;
}
