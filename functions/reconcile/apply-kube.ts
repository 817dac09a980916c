// Carries out the Kubernetes side's steps (shared/core/reconcile/kube-steps.ts) in order, each
// with its Event. Deleting a pod on a lost node is the one disruptive step: the run checks it
// still owns its key first.
import type { RedisCluster, RedisClusterStatus } from '../../shared/core/api/v1beta1.ts';
import { assertNever } from '../../shared/core/assert-never.ts';
import type { KubeStep } from '../../shared/core/reconcile/kube-steps.ts';
import type { Observed } from '../../shared/core/reconcile/observed.ts';
import { ANNOTATION_NODE_ID, stableJson } from '../../shared/core/resources/meta.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { OperatorPeer } from '../../shared/core/resources/network-policy.ts';
import { applyChildren } from './children.ts';
import type { Recorder } from './events.ts';
import type { AuthRef } from './observe.ts';

export interface KubeApplyContext {
  readonly kube: KubeClient;
  readonly cluster: RedisCluster;
  readonly observed: Observed;
  readonly auth: AuthRef;
  readonly events: Recorder;
  readonly signal: AbortSignal;
  /** Throws when the run no longer owns its key. */
  readonly assertOwner: () => Promise<void>;
  /** Where the operator runs: its NetworkPolicy admits it. */
  readonly operator: OperatorPeer;
}

/** Applies the steps in order; returns the kinds of the children written. */
export async function applyKubeSteps(steps: readonly KubeStep[], context: KubeApplyContext): Promise<string[]> {
  const written: string[] = [];
  for (const step of steps) written.push(...(await applyKubeStep(step, context)));
  return written;
}

async function applyKubeStep(step: KubeStep, context: KubeApplyContext): Promise<readonly string[]> {
  const { kube, cluster, events, signal } = context;
  const namespace = cluster.metadata.namespace ?? '';
  switch (step.kind) {
    case 'applyChildren':
      return (await applyChildren(context, step.replicas, events)).written;
    case 'warn':
      await events.warning(step.reason, step.message);
      return [];
    case 'annotateClaim':
      await kube.annotate(
        'v1',
        'PersistentVolumeClaim',
        namespace,
        step.claim,
        { [ANNOTATION_NODE_ID]: step.nodeId },
        signal,
      );
      return [];
    case 'shrinkStatefulSet': {
      const { written } = await applyChildren(context, step.replicas);
      await events.normal('ScaledIn', `removed ${step.removed} drained node(s) from the StatefulSet`);
      return written;
    }
    case 'deleteExternalServices':
      for (const name of step.services)
        await kube.delete({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace } }, {}, signal);
      await events.normal(
        'ExternalServicesDeleted',
        `deleted ${step.services.length} external access Service(s) no node announces: ${step.services.join(', ')}`,
      );
      return ['Service'];
    case 'forceDeletePod':
      await context.assertOwner();
      await kube.delete(
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: step.pod, namespace } },
        { gracePeriodSeconds: 0 },
        signal,
      );
      await events.warning(
        'NodeLost',
        `deleted ${step.pod}: its node stopped answering; the StatefulSet recreates it elsewhere with its volume`,
      );
      return [];
    default:
      return assertNever(step, 'Kubernetes step');
  }
}

/** Writes the status when it changed (an unchanged cluster costs no write). */
export async function writeStatus(
  kube: KubeClient,
  cluster: RedisCluster,
  status: RedisClusterStatus,
  signal?: AbortSignal,
): Promise<void> {
  if (stableJson(status) !== stableJson(cluster.status ?? {})) await kube.replaceStatus(cluster, status, signal);
}
