// Pods stuck on a lost node. When a node stops answering, the node-lifecycle controller evicts
// its pods, but a StatefulSet pod stays Terminating until its kubelet confirms, which a dead
// node never does, so the StatefulSet never replaces it. Redis has already failed over by then
// (the node is unreachable); after a grace period the operator deletes such pods with grace 0 so
// they come back elsewhere with their volume. A node that returns finds its Redis a replica.
import type { ObservedPod } from './observed.ts';

export const LOST_NODE_GRACE_MS = 20_000;

export function podsToForceDelete(pods: readonly ObservedPod[], now: number, graceMs = LOST_NODE_GRACE_MS): string[] {
  return pods.filter((p) => p.terminating && p.nodeLostSince !== undefined && now - p.nodeLostSince >= graceMs).map((p) => p.name);
}

/** When to look again for pods that are not yet past the grace period. */
export function nextLostPodCheck(pods: readonly ObservedPod[], now: number, graceMs = LOST_NODE_GRACE_MS): number | undefined {
  const waits = pods.filter((p) => p.terminating && p.nodeLostSince !== undefined).map((p) => (p.nodeLostSince as number) + graceMs - now).filter((w) => w > 0);
  return waits.length > 0 ? Math.min(...waits) : undefined;
}
