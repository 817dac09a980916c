// Who belongs: MEET pods the cluster does not know (new pods, a node back on a new IP), and
// FORGET ids that will not return (no slots, nobody replicating them, and either their address
// now answers with another id, or no pod has their address and they stayed silent while failed
// or listed without an address).
import { refOf } from './cluster-state.ts';
import type { PlanContext } from './plan-context.ts';
import type { PhasePlan, Problem } from './plan-types.ts';
import type { SlotRange } from './slots.ts';
import type { Step } from './steps.ts';
import { addressKey, knownAddress, myselfOf, type NodeView } from './topology.ts';

export function planMeet(ctx: PlanContext): PhasePlan {
  const { state } = ctx;
  const anchor = state.anchor;
  const problems: Problem[] = [];
  if (!anchor) return { steps: [], problems };
  const steps: Step[] = [];
  for (const stranger of state.strangers) {
    const pod = ctx.desired.pods.find((p) => p.name === stranger.pod);
    if (!pod || pod.removing || stranger === anchor) continue;
    // A MEET already under way shows as a handshake entry for the address.
    const known = knownAddress(stranger);
    if (anchor.entries.some((e) => e.handshake && e.address && addressKey(e.address) === addressKey(known))) continue;
    // Against what the members assign, not the folded owner: a stranger's claim with a higher
    // epoch wins the fold, and joining it would take the slots (and keys) from their owner.
    const mine = myselfOf(stranger).slots;
    const conflict = state.members.some((v) =>
      v.entries.some((e) => e.id !== stranger.id && e.slots.some((r) => mine.some((m) => overlap(r, m)))),
    );
    if (conflict) {
      problems.push({
        code: 'ConflictingStranger',
        message: `${stranger.pod} is outside the cluster and claims slots the cluster owns; not joining it`,
      });
      continue;
    }
    steps.push({
      kind: 'meet',
      from: refOf(anchor),
      to: known,
      ...busPortOf(stranger),
      reason: `${stranger.pod} is not part of the cluster`,
    });
  }
  const seen = new Set<string>();
  // A node that moved learns its own new address only from a MEET it receives: from the
  // anchor, or, when it is the anchor (a moved node can know the most entries), another member.
  for (const view of state.members) {
    const me = myselfOf(view).address;
    const from = view === anchor ? state.members.find((v) => v !== anchor) : anchor;
    const known = knownAddress(view);
    if (from && me && addressKey(me) !== addressKey(known)) {
      seen.add(view.id);
      steps.push({
        kind: 'meet',
        from: refOf(from),
        to: known,
        ...busPortOf(view),
        reason: `${view.pod} still believes it is at ${me.ip}`,
      });
    }
  }
  for (const stale of state.staleAddresses) {
    if (seen.has(stale.id)) continue;
    seen.add(stale.id);
    const from = state.members.find((v) => v.id === stale.by) ?? anchor;
    steps.push({
      kind: 'meet',
      from: refOf(from),
      to: stale.address,
      ...(stale.busPort ? { busPort: stale.busPort } : {}),
      reason: `node ${stale.id.slice(0, 8)} moved from ${stale.seenAs.ip} to ${stale.address.ip}`,
    });
  }
  return { steps, problems };
}

/** An announced node's bus port (not its port + 10000) goes with a MEET. */
export const busPortOf = (view: NodeView): { busPort?: number } => (view.known ? { busPort: view.known.busPort } : {});

const overlap = (a: SlotRange, b: SlotRange) => a.start <= b.end && b.start <= a.end;

export function planForgetGhosts(ctx: PlanContext): Step[] {
  const { state, options } = ctx;
  const liveAddresses = new Map(
    ctx.topology.views.flatMap((v) => [
      [addressKey(v.address), v.id] as const,
      [addressKey(knownAddress(v)), v.id] as const,
    ]),
  );
  const podAddresses = new Set(
    ctx.desired.pods
      .filter((p) => !p.removing)
      .flatMap((p) => [addressKey(p.address), ...(p.announced ? [addressKey(p.announced)] : [])]),
  );
  const steps: Step[] = [];
  for (const node of state.nodes.values()) {
    if (node.view || node.slots.length > 0 || node.pod?.removing || ctx.desired.keepIds?.has(node.id)) continue;
    if (state.members.some((v) => myselfOf(v).masterId === node.id)) continue;
    const key = node.address ? addressKey(node.address) : '';
    const replaced = liveAddresses.has(key) && liveAddresses.get(key) !== node.id;
    // Redis marks an id NOADDR when its address answers with another id (a reset or replaced
    // node), then neither pings it nor fails it, nor gossips it: kept by one member, it would
    // hold the views apart for good.
    const unreachable = node.failed || node.address === null;
    const orphan = !podAddresses.has(key) && unreachable && node.silentForMs > options.ghostGraceMs;
    if (!replaced && !orphan) continue;
    const on = state.members.filter((v) => v.id !== node.id).map((v) => refOf(v));
    if (on.length > 0)
      steps.push({
        kind: 'forget',
        id: node.id,
        on,
        reason: replaced ? 'its address now belongs to another node' : 'failed, owns nothing, and no pod carries it',
      });
  }
  return steps;
}
