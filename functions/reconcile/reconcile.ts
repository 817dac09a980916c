// The reconciler: a key in, an outcome out. Level-based: every pass re-reads the world, plans
// both sides purely and carries the plans out (STYLE: observe -> plan -> apply):
//   1: load the RedisCluster (gone: done)     5: plan and apply the Kubernetes side up to the
//   2: deleting: finalize                        engine (paused, auth, children, pods; or stop)
//   3: make sure the finalizer is on          6: one pass of the Redis engine, or one shard of
//   4: observe children, pods and claims         a backup in progress and the engine, which
//                                                holds slot moves and restarts meanwhile
//                                             7: plan and apply the rest (claims, scale-in,
//                                                lost pods), a restore's step, the backup
//                                                schedule, then status and the outcome
// A pass that fails once the RedisCluster is loaded goes through the error policy.
import type { KubeConfig } from '@kubernetes/client-node';
import { withDefaults } from '../../shared/core/api/defaults.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { done, noted, sooner, type Outcome } from '../../shared/core/outcome.ts';
import {
  planAfterEngine,
  planBeforeEngine,
  type EnginePass,
  type KubePlan,
  type KubePlanInput,
} from '../../shared/core/reconcile/plan-kube.ts';
import { carryBackupStatus } from '../../shared/core/backup/restore-status.ts';
import { toDesiredCluster } from '../../shared/core/reconcile/desired-cluster.ts';
import { updateRevisionOf } from '../../shared/core/reconcile/rollout.ts';
import { monitorHashOf } from '../../shared/core/resources/monitor-user.ts';
import { FINALIZER } from '../../shared/core/resources/names.ts';
import { DEFAULT_OPERATOR_NAMESPACE, type OperatorPeer } from '../../shared/core/resources/network-policy.ts';
import type { ChildCache } from '../../shared/io/kube/child-cache.ts';
import type { RedisClusterBackup } from '../../shared/core/api/backup-v1beta1.ts';
import { BackupClient } from '../../shared/io/kube/backup-client.ts';
import { KubeClient, type RequestCounter } from '../../shared/io/kube/kube-client.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { applyKubeSteps, writeStatus, type KubeApplyContext } from './apply-kube.ts';
import { failBackupsOfDeleted, runBackupPass, type BackupPassResult } from './backup-pass.ts';
import { runClusterPass } from './cluster-pass.ts';
import { withRestoreStep } from './restore-step.ts';
import { withScheduleStep } from './schedule-step.ts';
import { refOf, reportFailure } from './error-policy.ts';
import { recorder } from './events.ts';
import { passwordSetup } from './password.ts';
import { finalize } from './finalize.ts';
import { authRefOf, observeChildren, passwordOf } from './observe.ts';
import { observeTls, type TlsAccess } from './tls.ts';
import type { Reconcile, ReconcileContext } from './worker.ts';

export interface ReconcilerDeps {
  readonly kubeConfig: KubeConfig;
  readonly counter?: RequestCounter;
  /** The worker's watch-fed children and nodes (observe.ts falls back to reads until synced). */
  readonly cache?: ChildCache;
  /** The clock passes plan with and Events carry (ms since the epoch). */
  readonly clock?: () => number;
  /** Most slots one pass migrates (bounds a pass's duration). */
  readonly maxSlotsPerStep?: number;
  /** How long clients have to switch to a rotated password before the old one goes. */
  readonly passwordGraceMs?: number;
  /** Where the operator's reconcile worker runs (each cluster's NetworkPolicy admits it). */
  readonly operatorNamespace?: string;
  /** A namespaced install (WATCH_NAMESPACE): keys of other namespaces are refused. */
  readonly watchNamespace?: string;
}

const DEFAULT_MAX_SLOTS_PER_STEP = 2048;
/** How long clients told to switch password may still use the old one. */
const DEFAULT_PASSWORD_GRACE_MS = 30_000;
/** Bounds one Redis command; a MIGRATE batch of large keys may take a while. */
const REDIS_COMMAND_TIMEOUT_MS = 60_000;

interface Settings {
  readonly kube: KubeClient;
  readonly backups: BackupClient;
  readonly clock: () => number;
  readonly maxSlotsPerStep: number;
  readonly passwordGraceMs: number;
  readonly operator: OperatorPeer;
  readonly watchNamespace: string | undefined;
}

export function createReconcile(deps: ReconcilerDeps): Reconcile {
  const settings: Settings = {
    kube: new KubeClient(deps.kubeConfig, deps.counter, deps.cache),
    backups: new BackupClient(deps.kubeConfig),
    clock: deps.clock ?? Date.now,
    maxSlotsPerStep: deps.maxSlotsPerStep ?? DEFAULT_MAX_SLOTS_PER_STEP,
    passwordGraceMs: deps.passwordGraceMs ?? DEFAULT_PASSWORD_GRACE_MS,
    operator: { namespace: deps.operatorNamespace ?? DEFAULT_OPERATOR_NAMESPACE },
    watchNamespace: deps.watchNamespace,
  };
  return (key, context) => reconcileKey(settings, key, context);
}

async function reconcileKey(settings: Settings, key: string, context: ReconcileContext): Promise<Outcome> {
  const { namespace, name } = refOf(key);
  // A namespaced install has no rights elsewhere: a key of another namespace (queued before the
  // install was scoped, or by hand) is refused, not retried.
  if (settings.watchNamespace && namespace !== settings.watchNamespace)
    return noted(done(), {
      summary: `refused: namespace ${namespace} is outside WATCH_NAMESPACE=${settings.watchNamespace}`,
    });
  // 1: load the object; a deleted one needs nothing more
  const loaded = await settings.kube.getCluster(namespace, name, context.signal);
  if (!loaded) return noted(done(), { summary: 'the RedisCluster is gone', gone: true });
  const latest = { cluster: loaded };
  try {
    return await reconcileCluster(settings, latest, context);
  } catch (error) {
    throw await reportFailure(error, { ...settings, ...latest, log: context.log, signal: context.signal });
  }
}

/** Steps 2 to 7; `latest.cluster` follows the writes, for the error policy. */
async function reconcileCluster(
  settings: Settings,
  latest: { cluster: RedisCluster },
  context: ReconcileContext,
): Promise<Outcome> {
  const { kube, clock } = settings;
  const { log, signal, assertOwner } = context;
  let cluster = latest.cluster;
  const events = recorder(kube, cluster, log, clock, signal);
  // 2: deletion
  if (cluster.metadata.deletionTimestamp) {
    if (((cluster.metadata.finalizers as string[] | undefined) ?? []).includes(FINALIZER))
      await failBackupsOfDeleted({ kube, backups: settings.backups, cluster, log, signal, now: clock });
    await finalize(kube, cluster, events, log, signal);
    return noted(done(), { summary: 'deleting: finalized' });
  }
  // 3: the finalizer, before anything is created
  const finalizers = (cluster.metadata.finalizers as string[] | undefined) ?? [];
  if (!finalizers.includes(FINALIZER))
    latest.cluster = cluster = await kube.setFinalizers(cluster, [...finalizers, FINALIZER], signal);
  // 4: observe
  const now = clock();
  const observed = await observeChildren(kube, cluster, now, signal);
  const auth = authRefOf(cluster);
  const password = passwordOf(observed.children.secret, auth.key);
  const tls = await observeTls(kube, cluster, signal);
  const input: KubePlanInput = {
    cluster,
    spec: withDefaults(cluster.spec),
    observed,
    auth,
    hasPassword: !!password,
    ...(tls && 'problem' in tls ? { tlsProblem: tls.problem } : {}),
    now,
  };
  const apply: KubeApplyContext = {
    kube,
    cluster,
    observed,
    auth,
    events,
    signal,
    assertOwner,
    operator: settings.operator,
  };
  // 5: the Kubernetes side up to the engine; a stop ends the pass
  const before = planBeforeEngine(input);
  const written = await applyKubeSteps(before.steps, apply);
  if (before.kind === 'stop') return finish(kube, cluster, before, signal);
  // 6: one shard of a backup in progress, then one pass of the Redis engine (the planner stops
  // while there is no password); an applied StatefulSet has no settled revision yet, so nothing
  // rolls this pass
  const updateRevision = written.includes('StatefulSet') ? undefined : updateRevisionOf(observed.children.statefulSet);
  const access = tls && 'access' in tls ? tls.access : undefined;
  const { pass, listed, backup } = await runEngine(
    settings,
    input,
    password as string,
    updateRevision,
    apply,
    context,
    access,
  );
  // 7: the rest of the Kubernetes side, then status and the outcome
  const after = planAfterEngine({ ...input, replicas: before.replicas, pass });
  await applyKubeSteps(after.steps, apply);
  // 7b: a cluster created from a backup is Ready only once the backup's keys are back
  const restored = await withRestoreStep(after, {
    kube,
    backups: settings.backups,
    cluster,
    pods: observed.pods,
    password: password as string,
    ...(access ? { tls: access } : {}),
    events,
    log,
    signal,
    now,
  });
  // 7c: spec.backup's schedule and retention, on a Ready cluster
  const scheduled = await withScheduleStep(restored, {
    kube,
    backups: settings.backups,
    cluster,
    events,
    log,
    signal,
    now,
    listed,
  });
  const outcome = await finish(kube, cluster, scheduled, signal);
  // a running backup is followed at its own pace
  return backup.running ? sooner(outcome, backup.outcome) : outcome;
}

/**
 * A backup's shard (backup-pass.ts), then one pass of the Redis engine holding what the backup
 * needs held, over connections closed whatever happens.
 */
async function runEngine(
  settings: Settings,
  input: KubePlanInput,
  password: string,
  updateRevision: string | undefined,
  apply: KubeApplyContext,
  context: ReconcileContext,
  tls: TlsAccess | undefined,
): Promise<{
  readonly pass: EnginePass;
  readonly listed: readonly RedisClusterBackup[];
  readonly backup: BackupPassResult;
}> {
  const { kube, signal } = apply;
  const namespace = input.cluster.metadata.namespace ?? '';
  // the password in force, how to reach each node mid-rotation, and the rotation's plan (password.ts)
  const access = await passwordSetup(
    kube,
    input.cluster,
    input.observed,
    password,
    settings.passwordGraceMs,
    tls?.connection,
  );
  const monitorHash = monitorHashOf(input.observed.children.monitorSecret);
  const pool = new NodePool({
    ...access.pool,
    commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
    ...(tls ? { tls: tls.connection } : {}),
  });
  try {
    const pods = toDesiredCluster(input.spec, input.observed.pods, input.observed.claims).pods;
    // one list of the namespace's backups serves the backup in progress and the schedule
    const listed = await settings.backups.list(namespace, signal);
    const backup = await runBackupPass({
      listed,
      kube,
      backups: settings.backups,
      cluster: input.cluster,
      pods,
      pool,
      ...(tls ? { tls } : {}),
      log: context.log,
      signal,
      now: settings.clock,
    });
    const pass = await runClusterPass({
      spec: input.spec,
      pods: input.observed.pods,
      claims: input.observed.claims,
      ...(input.observed.children.externalServices
        ? { externalServices: input.observed.children.externalServices }
        : {}),
      updateRevision,
      pool,
      log: context.log,
      events: apply.events,
      now: input.now,
      maxSlotsPerStep: settings.maxSlotsPerStep,
      signal,
      assertOwner: context.assertOwner,
      rotation: access.rotation,
      ...(monitorHash ? { monitorHash } : {}),
      ...(tls ? { tls } : {}),
      ...(backup.running ? { hold: backup.hold } : {}),
      restartPod: (pod) =>
        kube.delete({ apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, namespace } }, {}, signal),
    });
    return { pass, listed, backup };
  } finally {
    await pool.close();
  }
}

/** The end of a pass: its status, written when it changed, and its outcome. */
async function finish(kube: KubeClient, cluster: RedisCluster, plan: KubePlan, signal: AbortSignal): Promise<Outcome> {
  if (plan.status) await writeStatus(kube, cluster, carryBackupStatus(plan.status, cluster.status), signal);
  return plan.outcome;
}
