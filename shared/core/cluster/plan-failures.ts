// Failed masters that own slots. Redis fails over by itself; the engine steps in only after a
// grace period: FAILOVER FORCE on the most up-to-date replica, TAKEOVER when no majority of
// masters is left to vote. A shard with no replica is reported, and its slots stay with the
// failed node, which may return with its data.
import { refOf, type NodeState } from './cluster-state.ts';
import { nodeLabel, type PlanContext } from './plan-context.ts';
import type { Step } from './steps.ts';

export function planFailures(ctx: PlanContext): Step[] | 'wait' {
  const { state, options } = ctx;
  const owners = [...state.nodes.values()].filter((n) => n.slots.length > 0);
  const down = owners.filter((n) => !n.view);
  if (down.length === 0) return [];
  for (const master of down) {
    const replicas = [...state.nodes.values()].filter((n) => n.view && n.masterId === master.id && n.role === 'replica');
    if (replicas.length === 0) {
      ctx.problems.push({ code: 'ShardLost', message: `master ${nodeLabel(master)} with ${master.slots.length} slots is down and has no replica; its slots stay assigned to it until it returns`, slots: master.slots.length });
      continue;
    }
    if (!master.failed || master.silentForMs < options.autoFailoverGraceMs) {
      ctx.problems.push({ code: 'ShardDown', message: `master ${nodeLabel(master)} is down; waiting for Redis to fail over to a replica`, slots: master.slots.length });
      continue;
    }
    const best = [...replicas].sort((a, b) => (b.view?.replication.offset ?? 0) - (a.view?.replication.offset ?? 0))[0] as NodeState;
    const alive = owners.filter((n) => n.view).length;
    const mode = alive * 2 > owners.length ? 'force' : 'takeover';
    ctx.problems.push({ code: 'ShardDown', message: `master ${nodeLabel(master)} is down and Redis did not fail over; promoting ${nodeLabel(best)} (${mode})`, slots: master.slots.length });
    return [{ kind: 'failover', replica: refOf(best), master: { id: master.id, address: master.address ?? { ip: '', port: 0 } }, mode, reason: 'orphaned replica of a failed master' }];
  }
  return 'wait';
}
