// spec.backup, planned purely: at each due time of the schedule a RedisClusterBackup named
// <cluster>-<yyyymmddhhmm> (UTC), owned by the cluster and marked with the due time it is for;
// the last such mark (else the cluster's creation) is where the schedule resumes, so a pass
// that runs late creates the one backup it missed, not one per missed time, and a name taken
// already (a retried pass) is not created twice. Retention keeps the `keep` newest Completed
// scheduled backups; older ones go, with their stored files. Backups a user created are never
// deleted. The next due time is when to look again.
import type { RedisClusterBackup } from '../api/backup-v1beta1.ts';
import { GROUP } from '../api/group.ts';
import type { RedisCluster } from '../api/v1beta1.ts';
import { nextDue, parseCron } from './cron.ts';
import { byCreation } from './plan-backup.ts';

/** On a scheduled backup: the due time (ISO) it was created for. */
export const ANNOTATION_SCHEDULED_FOR = `${GROUP}/scheduled-for`;
export const DEFAULT_KEEP = 7;
/** Due times looked through to find the latest one already passed (a schedule every minute, a week late). */
const MAX_CATCH_UP = 10_080;

export interface SchedulePlan {
  /** The backup to create now, named for the latest due time passed. */
  readonly create?: { readonly name: string; readonly dueAt: string };
  /** Completed scheduled backups beyond `keep`, oldest first. */
  readonly expire: readonly RedisClusterBackup[];
  /** When the next backup is due (ms from now), when the schedule has one. */
  readonly nextInMs?: number;
}

export function isScheduledBy(backup: RedisClusterBackup, cluster: RedisCluster): boolean {
  return (
    backup.metadata.annotations?.[ANNOTATION_SCHEDULED_FOR] !== undefined &&
    ((backup.metadata.ownerReferences as { uid?: string }[] | undefined) ?? []).some(
      (o) => o.uid === cluster.metadata.uid,
    )
  );
}

export function planSchedule(cluster: RedisCluster, backups: readonly RedisClusterBackup[], now: number): SchedulePlan {
  const spec = cluster.spec.backup;
  if (!spec) return { expire: [] };
  const cron = parseCron(spec.schedule);
  if ('error' in cron) return { expire: [] };
  const scheduled = backups.filter((b) => isScheduledBy(b, cluster));
  const completed = scheduled.filter((b) => b.status?.phase === 'Completed').sort(byCreation);
  const expire = completed.slice(0, Math.max(0, completed.length - (spec.keep ?? DEFAULT_KEEP)));
  const marks = scheduled.map((b) => Date.parse(b.metadata.annotations?.[ANNOTATION_SCHEDULED_FOR] ?? ''));
  const since = Math.max(
    Date.parse(String(cluster.metadata.creationTimestamp ?? '')) || now,
    ...marks.filter(Number.isFinite),
  );
  let due: number | undefined;
  for (let t = nextDue(cron, since), i = 0; t !== undefined && t <= now && i < MAX_CATCH_UP; t = nextDue(cron, t), i++)
    due = t;
  const next = nextDue(cron, Math.max(now, due ?? since));
  return {
    ...(due !== undefined
      ? { create: { name: scheduledName(cluster.metadata.name ?? '', due), dueAt: new Date(due).toISOString() } }
      : {}),
    expire,
    ...(next !== undefined ? { nextInMs: Math.max(0, next - now) } : {}),
  };
}

/** `<cluster>-<yyyymmddhhmm>` in UTC. */
export function scheduledName(cluster: string, at: number): string {
  return `${cluster}-${new Date(at).toISOString().slice(0, 16).replace(/[-T:]/g, '')}`;
}
