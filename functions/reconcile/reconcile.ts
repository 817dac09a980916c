// The reconciler: a key in, an outcome out. Level-based: every pass re-reads the world.
//   1: load the RedisCluster (gone: done)      6: one pass of the Redis engine
//   2: deleting: finalize                      7: node ids recorded on their volumes
//   3: make sure the finalizer is on           8: scale-in completes; lost pods go
//   4: paused: report and stop                 9: status, only when it changed
//   5: apply the children that differ
import type { KubeConfig } from '@kubernetes/client-node';
import { withDefaults } from '../../shared/core/api/defaults.ts';
import type { RedisCluster, RedisClusterStatus } from '../../shared/core/api/v1beta1.ts';
import { done, noted, OwnershipLostError, requeueAfter, type Outcome } from '../../shared/core/outcome.ts';
import { passSummary } from '../../shared/core/reconcile/pass-summary.ts';
import { snapshotOf } from '../../shared/core/run-note.ts';
import { nextLostPodCheck, podsToForceDelete } from '../../shared/core/reconcile/lost-pods.ts';
import { computeStatus, pausedStatus, podsActivityType } from '../../shared/core/reconcile/status.ts';
import { ANNOTATION_NODE_ID, stableJson } from '../../shared/core/resources/meta.ts';
import { claimsToRecord } from '../../shared/core/reconcile/desired-cluster.ts';
import { FINALIZER } from '../../shared/core/resources/names.ts';
import { podCount } from '../../shared/core/resources/statefulset.ts';
import { fromKey } from '../../shared/core/resource-key.ts';
import type { ChildCache } from '../../shared/io/kube/child-cache.ts';
import { KubeClient, type RequestCounter } from '../../shared/io/kube/kube-client.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import type { Logger } from '../../shared/io/log.ts';
import type { Reconcile, ReconcileContext } from './worker.ts';
import { applyChildren } from './children.ts';
import { runClusterPass, type ClusterPassResult } from './cluster-pass.ts';
import { recorder } from './events.ts';
import { finalize } from './finalize.ts';
import { authRefOf, observeChildren, passwordOf } from './observe.ts';
import { statefulSetReplicas } from './scale.ts';

export interface ReconcilerDeps {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly counter?: RequestCounter;
  /** The worker's watch-fed children and nodes (observe.ts falls back to reads until synced). */
  readonly cache?: ChildCache;
  readonly clock?: () => number;
  /** Most slots one pass migrates (bounds a pass's duration). */
  readonly maxSlotsPerStep?: number;
}

export function createReconcile(deps: ReconcilerDeps): Reconcile {
  const kube = new KubeClient(deps.kubeConfig, deps.counter, deps.cache);
  const clock = deps.clock ?? Date.now;
  return (key, context) => reconcileOnce(kube, key, context, clock, deps.maxSlotsPerStep ?? 2048);
}

async function reconcileOnce(
  kube: KubeClient,
  key: string,
  context: ReconcileContext,
  clock: () => number,
  maxSlotsPerStep: number,
): Promise<Outcome> {
  const { namespace, name } = fromKey(key);
  const log = context.log;
  // 1: load the object; a deleted one needs nothing more
  let cluster = await kube.getCluster(namespace, name);
  if (!cluster) return noted(done(), { summary: 'the RedisCluster is gone', gone: true });
  const events = recorder(kube, cluster, log);
  // 2: deletion
  if (cluster.metadata.deletionTimestamp) {
    await finalize(kube, cluster, events, log);
    return noted(done(), { summary: 'deleting: finalized' });
  }
  // 3: the finalizer, before anything is created
  const finalizers = (cluster.metadata.finalizers as string[] | undefined) ?? [];
  if (!finalizers.includes(FINALIZER)) cluster = await kube.setFinalizers(cluster, [...finalizers, FINALIZER]);
  const spec = withDefaults(cluster.spec);
  const now = clock();
  const observed = await observeChildren(kube, cluster, now);
  const statusBase = {
    name,
    generation: cluster.metadata.generation ?? 0,
    previous: cluster.status,
    expectedPods: podCount(spec),
    pods: observed.pods,
    now: new Date(now).toISOString(),
  };
  // 4: paused: report, change nothing
  if (spec.paused) {
    const status = await writeStatus(
      kube,
      cluster,
      pausedStatus(cluster.status, statusBase.generation, statusBase.now),
    );
    return noted(done(), { summary: 'paused (spec.paused)', status: snapshotOf(status) });
  }
  const auth = authRefOf(cluster);
  if (auth.external && !passwordOf(observed.children.secret, auth.key)) {
    const message = `Secret ${auth.name} with key ${auth.key} (spec.auth.secretRef) was not found`;
    await events.warning('AuthSecretMissing', message);
    const status = await writeStatus(
      kube,
      cluster,
      computeStatus({ ...statusBase, topology: undefined, plan: undefined, paused: false, error: message }),
    );
    return noted(requeueAfter(10_000), { summary: message, status: snapshotOf(status) });
  }
  // 5: children; the StatefulSet keeps nodes being drained until the engine lets them go
  const replicas = statefulSetReplicas(spec, observed, undefined);
  const { written } = await applyChildren(kube, cluster, observed, auth, replicas);
  const password = passwordOf(observed.children.secret, auth.key);
  if (!password) return noted(requeueAfter(1_000), { summary: 'created the auth Secret' }); // the generated Secret was just created
  // 6: one pass of the Redis engine; a new cluster is formed only once every pod is Ready,
  // so the first layout is the whole one (no migration right after creation)
  const formed = (cluster.status?.slotsCovered ?? 0) > 0 || (cluster.status?.shards?.length ?? 0) > 0;
  const readyPods = observed.pods.filter((p) => p.ready && !p.terminating).length;
  if (!formed && readyPods < podCount(spec)) {
    const status = await writeStatus(
      kube,
      cluster,
      computeStatus({
        ...statusBase,
        topology: undefined,
        plan: undefined,
        paused: false,
        activity: { type: 'Create', message: `waiting for pods: ${readyPods}/${podCount(spec)} ready` },
      }),
    );
    return noted(requeueAfter(1_000), {
      summary: status.operation?.progress ?? 'waiting for pods',
      status: snapshotOf(status),
    });
  }
  const pool = new NodePool({ auth: { password }, commandTimeoutMs: 60_000 });
  let pass: ClusterPassResult;
  try {
    pass = await runClusterPass({
      spec,
      pods: observed.pods,
      claims: observed.claims,
      updateRevision: written.includes('StatefulSet') ? undefined : updateRevisionOf(observed.children.statefulSet),
      pool,
      log,
      events,
      now,
      maxSlotsPerStep,
      signal: context.signal,
      assertOwner: context.assertOwner,
      restartPod: (pod) => kube.delete({ apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, namespace } }),
    });
  } catch (error) {
    // A run that lost its key leaves the telling to the run that holds it now.
    if (!(error instanceof OwnershipLostError)) await events.warning('ReconcileFailed', (error as Error).message);
    throw error;
  } finally {
    await pool.close();
  }
  // 7: node ids recorded on their volumes (a write only when a pod's id is new)
  const idOfPod = new Map(pass.topology.views.map((v) => [v.pod, v.id]));
  for (const { claim, nodeId } of claimsToRecord(observed.claims, idOfPod)) {
    await kube.annotate('v1', 'PersistentVolumeClaim', namespace, claim, { [ANNOTATION_NODE_ID]: nodeId });
  }
  // 8: finished scale-in shrinks the StatefulSet; pods stuck on a lost node are let go once
  // Redis holds their nodes failed (a cut-off kubelet's Redis may still serve)
  const shrunk = statefulSetReplicas(spec, observed, pass.plan.removable, pass.plan.converged);
  if (shrunk !== replicas) {
    await applyChildren(kube, cluster, observed, auth, shrunk);
    await events.normal('ScaledIn', `removed ${replicas - shrunk} drained node(s) from the StatefulSet`);
  }
  for (const pod of podsToForceDelete(observed.pods, pass.topology, now)) {
    await context.assertOwner();
    await kube.delete({ apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, namespace } }, { gracePeriodSeconds: 0 });
    await events.warning(
      'NodeLost',
      `deleted ${pod}: its node stopped answering; the StatefulSet recreates it elsewhere with its volume`,
    );
  }
  // 9: status
  const rolling = pass.rollout.kind === 'restart' || pass.rollout.kind === 'wait';
  const activity =
    rolling && pass.plan.converged
      ? {
          type: 'RollingUpdate' as const,
          message:
            pass.rollout.kind === 'wait'
              ? `rolling update: ${pass.rollout.outdated > 0 ? `${pass.rollout.outdated} pod(s) to restart, ` : ''}${pass.rollout.reason}`
              : `rolling update: ${pass.rollout.kind === 'restart' ? pass.rollout.outdated : 0} pod(s) to restart`,
        }
      : observed.pods.length < podCount(spec) || observed.pods.some((p) => !p.ready)
        ? {
            type: podsActivityType(cluster.status, spec.masters),
            message: `${observed.pods.filter((p) => p.ready).length}/${podCount(spec)} pods ready`,
          }
        : undefined;
  const status = computeStatus({
    ...statusBase,
    topology: pass.topology,
    plan: pass.plan,
    paused: false,
    ...(activity ? { activity } : {}),
  });
  await writeStatus(kube, cluster, status);
  const note = {
    summary: passSummary(status.operation?.progress ?? pass.plan.progress.message, pass.applied),
    status: snapshotOf(status),
  };
  if (status.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && !rolling) return noted(done(), note);
  const lost = nextLostPodCheck(observed.pods, now);
  return noted(
    requeueAfter(Math.min(pass.applied.length > 0 ? 200 : pass.plan.requeueAfterMs || 2_000, lost ?? Infinity)),
    note,
  );
}

function updateRevisionOf(
  sts:
    | { metadata?: { generation?: number }; status?: { observedGeneration?: number; updateRevision?: string } }
    | undefined,
): string | undefined {
  if (!sts?.status || sts.status.observedGeneration !== sts.metadata?.generation) return undefined;
  return sts.status.updateRevision;
}

/** Writes the status when it changed; returns it (for the run's note). */
async function writeStatus(
  kube: KubeClient,
  cluster: RedisCluster,
  status: RedisClusterStatus,
): Promise<RedisClusterStatus> {
  if (stableJson(status) === stableJson(cluster.status ?? {})) return status;
  await kube.replaceStatus(cluster, status);
  return status;
}
