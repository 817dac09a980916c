// Scale in after roles moved: a master on a pod that is leaving hands its slots to one of its
// replicas on a pod that stays, by a planned failover (DEFAULT: the master stops writes until
// the replica caught up, so no acknowledged write is lost), before anything is drained. Only
// masters with no replica on a staying pod are drained, so the scale-in keeps every master it
// can and ends with the asked shape. The failover waits for views that agree and a replica ready
// to take over (see handoverReplica).
import { refOf } from './cluster-state.ts';
import { handoverReplica } from './handover.ts';
import { nodeLabel, type PlanContext } from './plan-context.ts';
import type { Step } from './steps.ts';
import { myselfOf, type NodeView } from './topology.ts';

export function planHandoff(ctx: PlanContext): Step | 'wait' | undefined {
  const { state, desired } = ctx;
  const leaving = (pod: string) => !!desired.pods.find((p) => p.name === pod)?.removing;
  const stayingReplicasOf = (id: string) =>
    state.members.filter((v) => myselfOf(v).masterId === id && v.replication.role === 'replica' && !leaving(v.pod));
  const owners = [...state.nodes.values()].filter((n) => n.slots.length > 0);
  const leavingOwners = owners.filter((n) => n.view && n.pod?.removing);
  // Masters the scale-in keeps: those on staying pods, and leaving ones a staying replica takes over.
  const kept =
    owners.filter((n) => !n.pod?.removing).length +
    leavingOwners.filter((n) => stayingReplicasOf(n.id).length > 0).length;
  for (const master of leavingOwners) {
    const replicas = stayingReplicasOf(master.id);
    if (replicas.length === 0) {
      // Draining it would leave too few masters (3x1 -> 3x0 with a shard wholly on leaving
      // pods): first give it a staying replica that its own master can spare; the next passes
      // wait for it to sync and hand over.
      const spare = kept < desired.masters ? spareReplica(ctx, leaving) : undefined;
      if (!spare) continue;
      // Precondition: the spare knows the master (always so in a formed cluster).
      if (!master.address || !spare.entries.some((e) => e.id === master.id && !e.handshake)) return 'wait';
      return {
        kind: 'replicate',
        node: refOf(spare),
        master: refOf(master),
        reason: `${nodeLabel(master)} is leaving and no replica of it stays: a spare replica on a staying pod will take its slots`,
      };
    }
    const best = master.view ? handoverReplica(state.members, master.view, (v) => !leaving(v.pod)) : undefined;
    if (!best || !state.consistent || state.members.some((v) => v.info.state !== 'ok')) return 'wait';
    return {
      kind: 'failover',
      replica: refOf(best),
      master: refOf(master),
      mode: 'default',
      reason: `${nodeLabel(master)} is leaving: its replica on a staying pod takes its slots`,
    };
  }
  return undefined;
}

/** A replica on a staying pod whose master, also staying, has more staying replicas than asked. */
function spareReplica(ctx: PlanContext, leaving: (pod: string) => boolean): NodeView | undefined {
  const { state, desired } = ctx;
  return state.members
    .filter((v) => v.replication.role === 'replica' && !leaving(v.pod))
    .find((v) => {
      const master = state.nodes.get(myselfOf(v).masterId ?? '');
      if (!master || master.slots.length === 0 || !master.pod || master.pod.removing) return false;
      const siblings = state.members.filter(
        (r) => myselfOf(r).masterId === master.id && r.replication.role === 'replica' && !leaving(r.pod),
      );
      return siblings.length > desired.replicasPerMaster;
    });
}
