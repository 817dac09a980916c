// Scale in after roles moved: a master on a pod that is leaving hands its slots to one of its
// replicas on a pod that stays, by a planned failover (DEFAULT: the master stops writes until
// the replica caught up, so no acknowledged write is lost), before anything is drained. Only
// masters with no replica on a staying pod are drained, so the scale-in keeps every master it
// can and ends with the asked shape. The failover waits for views that agree and a synced replica
// its master knows as its own.
import { refOf } from './cluster-state.ts';
import { nodeLabel, type PlanContext } from './plan-context.ts';
import type { Step } from './steps.ts';
import { myselfOf } from './topology.ts';

export function planHandoff(ctx: PlanContext): Step | 'wait' | undefined {
  const { state, desired } = ctx;
  const leaving = (pod: string) => !!desired.pods.find((p) => p.name === pod)?.removing;
  for (const master of [...state.nodes.values()].filter((n) => n.slots.length > 0 && n.view && n.pod?.removing)) {
    const replicas = state.members.filter((v) => myselfOf(v).masterId === master.id && v.replication.role === 'replica' && !leaving(v.pod));
    if (replicas.length === 0) continue;
    // The master must know the replica as its own: it ignores a manual failover request otherwise.
    const known = (id: string) => master.view?.entries.some((e) => e.id === id && e.masterId === master.id);
    const synced = replicas.filter((v) => v.replication.linkUp && !v.replication.syncInProgress && known(v.id))
      .sort((a, b) => b.replication.offset - a.replication.offset);
    const best = synced[0];
    if (!best || !state.consistent || state.members.some((v) => v.info.state !== 'ok')) return 'wait';
    return { kind: 'failover', replica: refOf(best), master: refOf(master), mode: 'default', reason: `${nodeLabel(master)} is leaving: its replica on a staying pod takes its slots` };
  }
  return undefined;
}
