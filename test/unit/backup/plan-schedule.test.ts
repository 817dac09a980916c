import { expect } from 'chai';
import type { RedisClusterBackup } from '../../../shared/core/api/backup-v1beta1.ts';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { ANNOTATION_SCHEDULED_FOR, planSchedule } from '../../../shared/core/backup/plan-schedule.ts';

const storage = { s3: { bucket: 'b', credentialsSecretRef: { name: 's' } } };
const at = (iso: string) => Date.parse(iso);
const aCluster = (schedule = '0 3 * * *', keep = 2): RedisCluster => ({
  apiVersion: 'cache.redis.io/v1beta1',
  kind: 'RedisCluster',
  metadata: { name: 'cache', namespace: 'prod', uid: 'u-1', creationTimestamp: '2026-12-01T12:00:00Z' },
  spec: { backup: { schedule, keep, storage } },
});
const scheduled = (dueAt: string, phase = 'Completed', uid = 'u-1'): RedisClusterBackup => ({
  apiVersion: 'cache.redis.io/v1beta1',
  kind: 'RedisClusterBackup',
  metadata: {
    name: `cache-${dueAt}`,
    creationTimestamp: dueAt,
    annotations: { [ANNOTATION_SCHEDULED_FOR]: dueAt },
    ownerReferences: [{ uid }],
  },
  spec: { clusterName: 'cache', storage },
  status: { phase: phase as 'Completed' },
});

describe('backup/plan-schedule', () => {
  it('creates the first backup at the first due time after the cluster was created, named by it in UTC', () => {
    expect(planSchedule(aCluster(), [], at('2026-12-02T02:59:00Z'))).to.deep.equal({ expire: [], nextInMs: 60_000 });
    expect(planSchedule(aCluster(), [], at('2026-12-02T03:00:30Z'))).to.deep.equal({
      create: { name: 'cache-202612020300', dueAt: '2026-12-02T03:00:00.000Z' },
      expire: [],
      nextInMs: 24 * 3600_000 - 30_000,
    });
  });

  it('resumes from the last scheduled backup, creating only the latest one missed', () => {
    const plan = planSchedule(aCluster(), [scheduled('2026-12-02T03:00:00.000Z')], at('2026-12-05T10:00:00Z'));
    expect(plan.create?.name).to.equal('cache-202612050300');
    expect(
      planSchedule(aCluster(), [scheduled('2026-12-05T03:00:00.000Z', 'Running')], at('2026-12-05T10:00:00Z')).create,
    ).to.equal(undefined);
  });

  it("expires the oldest Completed scheduled backups beyond keep, never a user's or another cluster's", () => {
    const user = {
      ...scheduled('2026-11-01T03:00:00.000Z'),
      metadata: { name: 'mine', creationTimestamp: '2026-11-01T03:00:00Z' },
    };
    const backups = [
      scheduled('2026-12-04T03:00:00.000Z'),
      scheduled('2026-12-02T03:00:00.000Z'),
      scheduled('2026-12-03T03:00:00.000Z'),
      scheduled('2026-12-01T03:00:00.000Z', 'Completed', 'other-uid'),
      scheduled('2026-12-05T03:00:00.000Z', 'Failed'),
      user,
    ];
    const plan = planSchedule(aCluster('0 3 * * *', 2), backups, at('2026-12-05T10:00:00Z'));
    expect(plan.expire.map((b) => b.metadata.name)).to.deep.equal(['cache-2026-12-02T03:00:00.000Z']);
  });

  it('plans nothing without spec.backup', () => {
    const cluster = { ...aCluster(), spec: {} };
    expect(planSchedule(cluster, [scheduled('2026-12-02T03:00:00.000Z')], at('2026-12-05T10:00:00Z'))).to.deep.equal({
      expire: [],
    });
  });
});
