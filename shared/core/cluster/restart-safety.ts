// May the reconciler restart this pod now? A master that owns slots is never restarted while a
// synced replica exists: the answer is "not yet" with the failover step to run first (DEFAULT
// mode on the most up-to-date replica, so no acknowledged write is lost).
import type { DesiredCluster } from './desired.ts';
import { refOf, toClusterState } from './cluster-state.ts';
import { handoverReplica } from './handover.ts';
import type { Step } from './steps.ts';
import { myselfOf, type Topology } from './topology.ts';

export type RestartSafety =
  | { readonly safe: true; readonly reason: string }
  | { readonly safe: false; readonly reason: string; readonly failover?: Step };

export function isSafeToRestart(pod: string, desired: DesiredCluster, observed: Topology, now: number): RestartSafety {
  const state = toClusterState(desired, observed, now);
  const view = observed.views.find((v) => v.pod === pod);
  if (!view) return { safe: true, reason: `${pod} does not answer; nothing to hand over` };
  const me = myselfOf(view);
  if (me.role !== 'master') return { safe: true, reason: `${pod} is a replica` };
  const slots = state.nodes.get(view.id)?.slots.length ?? 0;
  if (slots === 0) return { safe: true, reason: `${pod} owns no slots` };
  const best = handoverReplica(observed.views, view);
  if (
    !best &&
    observed.views.some(
      (v) => myselfOf(v).masterId === view.id && v.replication.linkUp && !v.replication.syncInProgress,
    )
  ) {
    return {
      safe: false,
      reason: `${pod} owns ${slots} slots and does not list its synced replica as its own yet: wait`,
    };
  }
  if (!best)
    return {
      safe: true,
      reason: `${pod} owns ${slots} slots and has no synced replica: its slots are unavailable while it restarts`,
    };
  return {
    safe: false,
    reason: `${pod} owns ${slots} slots; fail over to ${best.pod} first`,
    failover: {
      kind: 'failover',
      replica: refOf(best),
      master: refOf(view),
      mode: 'default',
      reason: `planned restart of ${pod}`,
    },
  };
}
