// Pods stuck on a lost node. When a node stops answering, the node-lifecycle controller evicts
// its pods, but a StatefulSet pod stays Terminating until its kubelet confirms, which a dead
// node never does, so the StatefulSet never replaces it. The operator deletes such a pod with
// grace 0 so it comes back elsewhere with its volume, but only once Redis agrees its node is
// gone: a NotReady node may be a kubelet cut off from the API server while its Redis still
// serves, and a copy of that pod elsewhere (same volume, same nodes.conf) would be a second live
// node with the same id. So, past a grace period, Redis must say so too:
//   - the operator cannot reach the pod's Redis (no view of it),
//   - a majority of the reachable slot-owning masters mark its node FAIL,
//   - none of them still gives it slots (a master's shard has failed over).
import { myselfOf, type NodeEntry, type NodeView, type Topology } from '../cluster/topology.ts';
import type { ObservedPod } from './observed.ts';

/** The least time a node must be lost before its pods are deleted, whatever Redis says. */
export const LOST_NODE_GRACE_MS = 20_000;

const pastGrace = (p: ObservedPod, now: number, graceMs: number) =>
  p.terminating && p.nodeLostSince !== undefined && now - p.nodeLostSince >= graceMs;

export function podsToForceDelete(
  pods: readonly ObservedPod[],
  topology: Topology,
  now: number,
  graceMs = LOST_NODE_GRACE_MS,
): string[] {
  return pods.filter((p) => pastGrace(p, now, graceMs) && redisAgreesGone(p, topology)).map((p) => p.name);
}

/** Whether Redis holds the pod's node failed and replaced (see the header). */
export function redisAgreesGone(pod: ObservedPod, topology: Topology): boolean {
  if (topology.views.some((v) => v.pod === pod.name) || pod.ip === undefined) return false;
  const id = topology.views.flatMap((v) => v.entries).find((e) => !e.myself && e.address?.ip === pod.ip)?.id;
  if (id === undefined) return false;
  const voters = topology.views.filter((v) => v.id !== id && isSlotOwner(v));
  const seen = voters.map((v) => v.entries.find((e) => e.id === id)).filter((e): e is NodeEntry => e !== undefined);
  const failed = seen.filter((e) => e.failing === 'fail').length;
  return voters.length > 0 && failed * 2 > voters.length && seen.every((e) => e.slots.length === 0);
}

function isSlotOwner(view: NodeView): boolean {
  const me = myselfOf(view);
  return me.role === 'master' && me.slots.length > 0;
}

/** When to look again for pods that are not yet past the grace period. */
export function nextLostPodCheck(
  pods: readonly ObservedPod[],
  now: number,
  graceMs = LOST_NODE_GRACE_MS,
): number | undefined {
  const waits = pods
    .filter((p) => p.terminating && p.nodeLostSince !== undefined)
    .map((p) => (p.nodeLostSince as number) + graceMs - now)
    .filter((w) => w > 0);
  return waits.length > 0 ? Math.min(...waits) : undefined;
}
