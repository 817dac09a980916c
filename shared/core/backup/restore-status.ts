// A cluster created from a backup (spec.restore) is not Ready until every key is back: the
// status the engine computed is overridden while the restore runs or has failed (Ready False,
// reason Restoring or RestoreFailed, phase Creating, so the cluster never counts as formed),
// and status.restore carries its progress from pass to pass.
import type { Condition } from '../api/k8s-types.ts';
import type { RedisClusterStatus, RestoreStatus } from '../api/v1beta1.ts';

export function withRestore(
  status: RedisClusterStatus,
  restore: RestoreStatus | undefined,
  now: string,
): RedisClusterStatus {
  if (!restore) return status;
  if (restore.phase === 'Completed') return { ...status, restore };
  const failed = restore.phase === 'Failed';
  const message = `${failed ? 'restore failed' : 'restoring'} from RedisClusterBackup ${restore.backupName}: ${restore.message ?? ''}`;
  const override = (c: Condition): Condition => {
    const next =
      c.type === 'Ready'
        ? { ...c, status: 'False' as const, reason: failed ? 'RestoreFailed' : 'Restoring', message }
        : c.type === 'Progressing' && !failed
          ? { ...c, status: 'True' as const, reason: 'Restoring', message }
          : c.type === 'Degraded' && failed
            ? { ...c, status: 'True' as const, reason: 'RestoreFailed', message }
            : c;
    return next.status === c.status ? next : { ...next, lastTransitionTime: now };
  };
  return { ...status, phase: 'Creating', conditions: status.conditions?.map(override), restore };
}

/** The engine's own verdict, before the restore's override: the cluster is formed and settled. */
export function engineReady(status: RedisClusterStatus | undefined): boolean {
  return status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** What the status of a pass keeps from the last one when it does not set it: the restore's record. */
export function carryBackupStatus(
  status: RedisClusterStatus,
  previous: RedisClusterStatus | undefined,
): RedisClusterStatus {
  return previous?.restore && !status.restore ? { ...status, restore: previous.restore } : status;
}
