// Failed masters that own slots. Redis fails over by itself; the engine steps in only where
// Redis' own majority already agreed and Redis did not act: the operator must see a majority
// of the slot-owning masters, a majority of them must mark the master FAIL, and the grace
// period must be over. Then FAILOVER FORCE on the most up-to-date replica, which still needs
// the masters' votes. An unreachable master is never evidence by itself (the operator may be
// on the minority side of a partition), and TAKEOVER, which skips the vote and wins over
// writes the majority acknowledged, is never planned. A shard with no replica is reported,
// and its slots stay with the failed node, which may return with its data.
import { refOf, type ClusterState, type NodeState } from './cluster-state.ts';
import { nodeLabel, type PlanContext } from './plan-context.ts';
import type { PhasePlan, Problem } from './plan-types.ts';
import type { Step } from './steps.ts';
import { myselfOf } from './topology.ts';

export function planFailures(ctx: PlanContext): PhasePlan<Step[] | 'wait'> {
  const { state, options } = ctx;
  const problems: Problem[] = [];
  const owners = [...state.nodes.values()].filter((n) => n.slots.length > 0);
  const down = owners.filter((n) => !n.view);
  if (down.length === 0) return { steps: [], problems };
  const majority = Math.floor(owners.length / 2) + 1;
  const seen = owners.filter((n) => n.view).length;
  for (const master of down) {
    const replicas = [...state.nodes.values()].filter(
      (n) => n.view && n.masterId === master.id && n.role === 'replica',
    );
    if (replicas.length === 0) {
      problems.push({
        code: 'ShardLost',
        message: `master ${nodeLabel(master)} with ${master.slots.length} slots is down and has no replica; its slots stay assigned to it until it returns`,
        slots: master.slots.length,
      });
      continue;
    }
    const votes = failVotes(state, master.id);
    const why =
      seen < majority
        ? `the operator sees only ${seen} of ${owners.length} masters`
        : votes < majority
          ? `only ${votes} of ${owners.length} masters mark it failed`
          : master.silentForMs < options.autoFailoverGraceMs
            ? 'waiting for Redis to fail over to a replica'
            : undefined;
    if (why !== undefined) {
      problems.push({
        code: 'ShardDown',
        message: `master ${nodeLabel(master)} does not answer; not failing it over: ${why}`,
        slots: master.slots.length,
      });
      continue;
    }
    const best = [...replicas].sort(
      (a, b) => (b.view?.replication.offset ?? 0) - (a.view?.replication.offset ?? 0),
    )[0] as NodeState;
    problems.push({
      code: 'ShardDown',
      message: `master ${nodeLabel(master)} failed and Redis did not fail over; promoting ${nodeLabel(best)}`,
      slots: master.slots.length,
    });
    const failover: Step = {
      kind: 'failover',
      replica: refOf(best),
      master: { id: master.id, address: master.address ?? { ip: '', port: 0 } },
      mode: 'force',
      reason: 'replica of a master the cluster agreed has failed',
    };
    return { steps: [failover], problems };
  }
  return { steps: 'wait', problems };
}

/** Reachable slot-owning masters whose own view marks `id` FAIL (Redis' agreed failure). */
function failVotes(state: ClusterState, id: string): number {
  return state.members.filter((v) => {
    const me = myselfOf(v);
    return (
      me.role === 'master' &&
      (state.nodes.get(v.id)?.slots.length ?? 0) > 0 &&
      v.entries.some((e) => e.id === id && e.failing === 'fail')
    );
  }).length;
}
