// Where the nodes say they are (spec.externalAccess): each node announces the address its pod
// was given (CONFIG SET cluster-announce-*), or its own address again once external access is
// off. The peers learn a new address from the node's next ping (and a MEET when they do not:
// plan-membership's stale addresses). A pod with no address to announce yet is a problem, not a
// wait: the cluster forms and serves at the pods' addresses meanwhile, but is not Ready.
import { addressKey } from './topology.ts';
import type { AnnouncedAddress } from './desired.ts';
import { refOf } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import type { PhasePlan, Problem } from './plan-types.ts';
import type { Step } from './steps.ts';

const same = (a: AnnouncedAddress | null, b: AnnouncedAddress | null) =>
  a === null || b === null ? a === b : addressKey(a) === addressKey(b) && a.busPort === b.busPort;

export function planAnnounce(ctx: PlanContext): PhasePlan {
  const steps: Step[] = [];
  const pending: string[] = [];
  for (const view of ctx.topology.views) {
    const pod = ctx.desired.pods.find((p) => p.name === view.pod);
    // `announcing` is what the node said; without it (not asked) nothing is known to change.
    if (!pod || view.announcing === undefined) continue;
    if (pod.announced === null) {
      pending.push(pod.name);
      continue;
    }
    const want = pod.announced ?? null;
    if (same(want, view.announcing)) continue;
    steps.push({
      kind: 'announce',
      node: refOf(view),
      to: want,
      reason: want ? 'spec.externalAccess gives it this address' : 'spec.externalAccess is off',
    });
  }
  const problems: Problem[] =
    pending.length > 0
      ? [
          {
            code: 'ExternalAddressPending',
            message: `no external address yet for ${pending.join(', ')} (spec.externalAccess): clients outside cannot reach ${pending.length === 1 ? 'it' : 'them'}`,
          },
        ]
      : [];
  return { steps, problems };
}
