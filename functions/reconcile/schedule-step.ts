// spec.backup in a pass (plan-schedule.ts decides): on a Ready cluster (restored, when it was
// created from a backup), create the backup now due, expire what retention lets go (stored
// files first: a backup whose files could not be deleted stays, and is tried again), and look
// again at the next due time.
import { BACKUP_KIND, API_VERSION_V1BETA1 } from '../../shared/core/api/group.ts';
import type { RedisClusterBackup } from '../../shared/core/api/backup-v1beta1.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { backupDir } from '../../shared/core/backup/layout.ts';
import { ANNOTATION_SCHEDULED_FOR, planSchedule } from '../../shared/core/backup/plan-schedule.ts';
import { engineReady } from '../../shared/core/backup/restore-status.ts';
import { noted, requeueAfter, REQUEUE_AFTER_STEPS_MS, type Outcome } from '../../shared/core/outcome.ts';
import type { KubePlan } from '../../shared/core/reconcile/plan-kube.ts';
import { childLabels, ownerReference } from '../../shared/core/resources/meta.ts';
import type { BackupClient } from '../../shared/io/kube/backup-client.ts';
import { isConflict } from '../../shared/io/kube/errors.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';
import { ObjectStoreError } from '../../shared/io/object-store.ts';
import { BackupSetupError, openStore } from './backup-store.ts';
import { ownerOf } from './children.ts';
import type { Recorder } from './events.ts';

export interface ScheduleStepInput {
  readonly kube: KubeClient;
  readonly backups: BackupClient;
  readonly cluster: RedisCluster;
  readonly events: Recorder;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly now: number;
  /** The namespace's backups as the pass listed them. */
  readonly listed: readonly RedisClusterBackup[];
}

export async function withScheduleStep(plan: KubePlan, input: ScheduleStepInput): Promise<KubePlan> {
  const { cluster, backups, signal } = input;
  const spec = cluster.spec.backup;
  const restoring = cluster.spec.restore && plan.status?.restore?.phase !== 'Completed';
  if (!spec || !engineReady(plan.status) || restoring) return plan;
  const namespace = cluster.metadata.namespace ?? '';
  const schedule = planSchedule(cluster, input.listed, input.now);
  // 1: the backup now due
  if (schedule.create) {
    const backup: RedisClusterBackup = {
      apiVersion: API_VERSION_V1BETA1,
      kind: BACKUP_KIND,
      metadata: {
        name: schedule.create.name,
        namespace,
        labels: childLabels(cluster.metadata.name ?? '', 'backup'),
        annotations: { [ANNOTATION_SCHEDULED_FOR]: schedule.create.dueAt },
        ownerReferences: [ownerReference(ownerOf(cluster))],
      },
      spec: { clusterName: cluster.metadata.name ?? '', storage: spec.storage },
    };
    try {
      await backups.create(backup, signal);
      await input.events.normal(
        'BackupScheduled',
        `created RedisClusterBackup ${schedule.create.name} (schedule ${spec.schedule})`,
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  // 2: retention, files first
  for (const old of schedule.expire) await expire(input, old);
  // 3: when to look again: soon after a new backup (it starts next pass), else at the next due time
  const wait = schedule.create ? REQUEUE_AFTER_STEPS_MS : schedule.nextInMs;
  return wait === undefined ? plan : { ...plan, outcome: sooner(plan.outcome, wait) };
}

async function expire(input: ScheduleStepInput, backup: RedisClusterBackup): Promise<void> {
  const name = backup.metadata.name ?? '';
  const namespace = backup.metadata.namespace ?? '';
  try {
    const store = await openStore(input.kube, namespace, backup.spec.storage, input.signal);
    try {
      const dir = backupDir(namespace, backup.spec.clusterName, name);
      const objects = await store.list(dir, { signal: input.signal });
      await store.delete(
        objects.map((o) => o.key),
        { signal: input.signal },
      );
    } finally {
      store.close();
    }
  } catch (error) {
    if (input.signal.aborted || !(error instanceof ObjectStoreError || error instanceof BackupSetupError)) throw error;
    await input.events.warning(
      'BackupExpiryFailed',
      `could not delete the files of RedisClusterBackup ${name}: ${error.message}`,
    );
    return;
  }
  await input.backups.delete(namespace, name, input.signal);
  await input.events.normal(
    'BackupExpired',
    `deleted RedisClusterBackup ${name} and its files (keep ${input.cluster.spec.backup?.keep})`,
  );
}

function sooner(outcome: Outcome, ms: number): Outcome {
  if (outcome.kind === 'requeueAfter' && outcome.ms <= ms) return outcome;
  return noted(requeueAfter(ms), outcome.note ?? { summary: 'next scheduled backup' });
}
