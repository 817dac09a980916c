// What a backup pass does, decided purely from the backups and the shards observed: which
// backup is in progress (one at a time per cluster, oldest first), and its next step: wait
// for the cluster to be Ready, store the next shard, finish, or fail (the slot layout changed
// under it). One shard per pass: a pass stays short, and the status shows progress.
import type { BackupShardStatus, RedisClusterBackup } from '../api/backup-v1beta1.ts';
import type { RedisClusterStatus } from '../api/v1beta1.ts';
import { countSlots, SLOT_COUNT } from '../cluster/slots.ts';
import { parseSlots, type BackupShard } from './layout.ts';

const finished = new Set(['Completed', 'Failed']);

/** The cluster's backup in progress: the oldest not finished one naming it. */
export function activeBackupOf(
  backups: readonly RedisClusterBackup[],
  cluster: string,
): RedisClusterBackup | undefined {
  return backups
    .filter((b) => b.spec?.clusterName === cluster && !finished.has(b.status?.phase ?? 'Pending'))
    .sort(byCreation)[0];
}

export function byCreation(a: RedisClusterBackup, b: RedisClusterBackup): number {
  const at = (x: RedisClusterBackup) => String(x.metadata.creationTimestamp ?? '');
  return at(a).localeCompare(at(b)) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

export function isReady(status: RedisClusterStatus | undefined): boolean {
  return status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export type BackupStep =
  | { readonly kind: 'shard'; readonly index: number; readonly shard: BackupShard }
  | { readonly kind: 'complete' }
  | { readonly kind: 'fail'; readonly message: string };

/**
 * The next shard not stored yet, or the end; the stored shards must not overlap and must cover
 * every slot. The masters observed must serve every slot exactly once: a slot no reachable
 * master serves (a master down, its failover not done) or one two masters claim (a stale master
 * back) would give a backup with a hole or old data, so the backup fails instead of guessing.
 */
export function nextBackupStep(stored: readonly BackupShardStatus[], shards: readonly BackupShard[]): BackupStep {
  const claimed = shards.flatMap((s) => parseSlots(s.slots) ?? []);
  const served = new Set(claimed.flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i)));
  if (served.size < countSlots(claimed))
    return {
      kind: 'fail',
      message: 'two masters claim the same slots: the cluster is not settled; create a new backup',
    };
  if (served.size < SLOT_COUNT)
    return {
      kind: 'fail',
      message: `${SLOT_COUNT - served.size} slot(s) have no reachable master (a master is down); create a new backup once the cluster is Ready`,
    };
  const done = new Set(stored.map((s) => s.slots));
  const index = shards.findIndex((s) => !done.has(s.slots));
  if (index >= 0) {
    const shard = shards[index]!;
    const overlap = stored.some((s) => overlaps(s.slots, shard.slots));
    if (overlap)
      return { kind: 'fail', message: "the cluster's slot layout changed during the backup; create a new backup" };
    return { kind: 'shard', index: stored.length, shard };
  }
  const covered = stored.reduce((sum, s) => sum + countSlots(parseSlots(s.slots) ?? []), 0);
  if (covered !== SLOT_COUNT)
    return {
      kind: 'fail',
      message: `the stored shards cover ${covered} of ${SLOT_COUNT} slots: the slot layout changed during the backup`,
    };
  return { kind: 'complete' };
}

function overlaps(a: string, b: string): boolean {
  const ra = parseSlots(a) ?? [];
  const rb = parseSlots(b) ?? [];
  return ra.some((x) => rb.some((y) => x.start <= y.end && y.start <= x.end));
}
