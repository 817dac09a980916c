// Rolling restarts (image, restart-only config, anything in the pod template). The StatefulSet
// updates OnDelete, so the operator picks which pod goes next: one at a time, only when the
// cluster is converged and every pod is Ready; replicas first, then masters, and a master only
// after a planned failover has made it a replica (the engine's restart-safety check).
import type { ObservedPod } from './observed.ts';

export type RolloutDecision =
  | { readonly kind: 'none' }
  | { readonly kind: 'wait'; readonly reason: string; readonly outdated: number }
  | { readonly kind: 'restart'; readonly pod: string; readonly role: 'master' | 'replica'; readonly outdated: number };

export interface RolloutInput {
  readonly pods: readonly ObservedPod[];
  /** status.updateRevision of the StatefulSet once its controller has seen the latest spec; undefined before. */
  readonly updateRevision: string | undefined;
  readonly expectedPods: number;
  readonly clusterConverged: boolean;
  /** Why no pod may restart now (a backup in progress reads from them), if one may not. */
  readonly hold?: string;
  readonly roleOf: (pod: string) => 'master' | 'replica' | undefined;
}

export function planRollout(input: RolloutInput): RolloutDecision {
  const { pods, updateRevision } = input;
  // Unknown until the StatefulSet controller has seen the latest template: not yet settled.
  if (!updateRevision)
    return pods.length === 0
      ? { kind: 'none' }
      : { kind: 'wait', reason: 'waiting for the StatefulSet controller to take the new template', outdated: 0 };
  const outdated = pods.filter(
    (p) => p.revision !== undefined && p.revision !== updateRevision && p.ordinal < input.expectedPods,
  );
  if (outdated.length === 0) return { kind: 'none' };
  const n = outdated.length;
  if (pods.some((p) => p.terminating)) return { kind: 'wait', reason: 'a pod is restarting', outdated: n };
  if (pods.length < input.expectedPods || pods.some((p) => !p.ready))
    return { kind: 'wait', reason: 'waiting for every pod to be Ready', outdated: n };
  if (!input.clusterConverged) return { kind: 'wait', reason: 'waiting for the cluster to settle', outdated: n };
  if (input.hold) return { kind: 'wait', reason: input.hold, outdated: n };
  const byOrdinalDesc = [...outdated].sort((a, b) => b.ordinal - a.ordinal);
  const replica = byOrdinalDesc.find((p) => input.roleOf(p.name) === 'replica');
  if (replica) return { kind: 'restart', pod: replica.name, role: 'replica', outdated: n };
  const first = byOrdinalDesc[0] as ObservedPod;
  return { kind: 'restart', pod: first.name, role: 'master', outdated: n };
}

/** The StatefulSet's update revision, once its controller has seen the latest spec. */
export function updateRevisionOf(
  sts:
    | { metadata?: { generation?: number }; status?: { observedGeneration?: number; updateRevision?: string } }
    | undefined,
): string | undefined {
  if (!sts?.status || sts.status.observedGeneration !== sts.metadata?.generation) return undefined;
  return sts.status.updateRevision;
}
