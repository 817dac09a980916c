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
import { myselfOf } from './topology.ts';

export function planHandoff(ctx: PlanContext): Step | 'wait' | undefined {
  const { state, desired } = ctx;
  const leaving = (pod: string) => !!desired.pods.find((p) => p.name === pod)?.removing;
  for (const master of [...state.nodes.values()].filter((n) => n.slots.length > 0 && n.view && n.pod?.removing)) {
    const replicas = state.members.filter((v) => myselfOf(v).masterId === master.id && v.replication.role === 'replica' && !leaving(v.pod));
    if (replicas.length === 0) continue;
    const best = master.view ? handoverReplica(state.members, master.view, (v) => !leaving(v.pod)) : undefined;
    if (!best || !state.consistent || state.members.some((v) => v.info.state !== 'ok')) return 'wait';
    return { kind: 'failover', replica: refOf(best), master: refOf(master), mode: 'default', reason: `${nodeLabel(master)} is leaving: its replica on a staying pod takes its slots` };
  }
  return undefined;
}
