// The admission rules of spec.backup and spec.restore the schema cannot express: a schedule
// that is a real cron expression (the schema checks only its 5 fields), and a restore that is
// decided at creation (a live cluster's keys are never replaced by a backup's).
import { parseCron } from '../backup/cron.ts';
import { jsonEqual } from './json.ts';
import type { RedisCluster } from './v1beta1.ts';
import type { Verdict } from './verdict.ts';

export function checkBackupAndRestore(obj: RedisCluster, old: RedisCluster | undefined, v: Verdict): void {
  const schedule = obj.spec?.backup?.schedule;
  if (schedule !== undefined && (!old || schedule !== old.spec?.backup?.schedule)) {
    const parsed = parseCron(schedule);
    if ('error' in parsed) v.denials.push(`spec.backup.schedule: ${parsed.error}`);
  }
  if (old === undefined) return;
  const restore = obj.spec?.restore;
  const before = old.spec?.restore;
  if (!jsonEqual(restore, before))
    v.denials.push(
      before === undefined
        ? 'spec.restore cannot be added to an existing RedisCluster: a restore fills a new cluster only; create a new RedisCluster with spec.restore'
        : 'spec.restore cannot change or be removed after creation: the cluster was created from that backup; create a new RedisCluster to restore another one',
    );
}
