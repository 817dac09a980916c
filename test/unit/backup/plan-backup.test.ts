import { expect } from 'chai';
import type { BackupShardStatus, RedisClusterBackup } from '../../../shared/core/api/backup-v1beta1.ts';
import { backupShards, formatSlots, parseSlots } from '../../../shared/core/backup/layout.ts';
import { parseManifest } from '../../../shared/core/backup/manifest.ts';
import { activeBackupOf, nextBackupStep } from '../../../shared/core/backup/plan-backup.ts';
import { aTopology, pods, threeByOne } from '../cluster/builders.ts';

const all = pods(6);
const stored = (slots: string): BackupShardStatus => ({
  slots,
  keys: 1,
  bytes: 10,
  crc64: '0'.repeat(16),
  object: 'x',
});
const aBackup = (name: string, created: string, phase?: string, cluster = 'cache'): RedisClusterBackup =>
  ({
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisClusterBackup',
    metadata: { name, creationTimestamp: created },
    spec: { clusterName: cluster, storage: { s3: { bucket: 'b', credentialsSecretRef: { name: 's' } } } },
    ...(phase ? { status: { phase } } : {}),
  }) as RedisClusterBackup;

describe('backup/layout and plan-backup', () => {
  it('takes each master by its first slot, from a linked replica, else from the master', () => {
    const topology = aTopology(all, [...threeByOne.slice(0, 4), { pod: 4, role: 'replica', of: 2, syncing: true }]);
    expect(backupShards(topology).map((s) => [s.slots, s.masterPod, s.source.pod, s.source.role])).to.deep.equal([
      ['0-5461', 'redis-0', 'redis-0', 'master'],
      ['5462-10922', 'redis-1', 'redis-3', 'replica'],
      ['10923-16383', 'redis-2', 'redis-2', 'master'],
    ]);
  });

  it('writes and reads slot ranges as "0-5460,5462"', () => {
    expect(
      formatSlots([
        { start: 0, end: 5460 },
        { start: 5462, end: 5462 },
      ]),
    ).to.equal('0-5460,5462');
    expect(parseSlots('0-5460,5462')).to.deep.equal([
      { start: 0, end: 5460 },
      { start: 5462, end: 5462 },
    ]);
    for (const bad of ['', '5-1', '0-16384', 'a', '1,,2']) expect(parseSlots(bad), bad).to.equal(undefined);
  });

  it('works on the oldest unfinished backup of this cluster, one at a time', () => {
    const backups = [
      aBackup('new', '2026-12-04T10:00:00Z'),
      aBackup('done', '2026-12-01T10:00:00Z', 'Completed'),
      aBackup('other', '2026-12-01T10:00:00Z', undefined, 'sessions'),
      aBackup('running', '2026-12-03T10:00:00Z', 'Running'),
    ];
    expect(activeBackupOf(backups, 'cache')?.metadata.name).to.equal('running');
    expect(activeBackupOf(backups.slice(1, 3), 'cache')).to.equal(undefined);
  });

  it('stores the next shard not stored, then completes once every slot is stored', () => {
    const shards = backupShards(aTopology(all, threeByOne));
    expect(nextBackupStep([], shards)).to.deep.include({ kind: 'shard', index: 0 });
    const step = nextBackupStep([stored('0-5461')], shards);
    expect(step.kind === 'shard' && [step.index, step.shard.slots]).to.deep.equal([1, '5462-10922']);
    expect(nextBackupStep(['0-5461', '5462-10922', '10923-16383'].map(stored), shards)).to.deep.equal({
      kind: 'complete',
    });
  });

  it('fails when the slots moved between shards (overlapping or not covering every slot)', () => {
    const moved = backupShards(
      aTopology(all, [
        { pod: 0, slots: '0-6000' },
        { pod: 1, slots: '6001-16383' },
      ]),
    );
    expect(nextBackupStep([stored('0-5461')], moved)).to.have.property('kind', 'fail');
    const shrunk = backupShards(
      aTopology(all, [
        { pod: 0, slots: '0-5461' },
        { pod: 1, slots: '5462-16383' },
      ]),
    );
    expect(nextBackupStep([stored('0-5461'), stored('5462-10922')], shrunk)).to.have.property('kind', 'fail');
  });

  it('fails rather than store a hole or stale data when no master or two masters serve some slots', () => {
    const down = backupShards(
      aTopology(
        all,
        threeByOne.filter((s) => s.pod !== 2 && s.pod !== 5),
      ),
    );
    expect(nextBackupStep([stored('0-5461')], down))
      .to.have.property('message')
      .that.matches(/^5461 slot\(s\) have no reachable master/);
    const stale = backupShards(
      aTopology(all, [
        { pod: 0, slots: '0-5461' },
        { pod: 1, slots: '5462-16383' },
        { pod: 2, slots: '10923-16383' },
      ]),
    );
    expect(nextBackupStep([], stale))
      .to.have.property('message')
      .that.matches(/^two masters claim the same slots/);
  });

  it('reads a manifest back only when it is whole: format, shards, checksums, every slot', () => {
    const shard = (slots: string) => ({ slots, keys: 3, bytes: 99, crc64: 'abcdef0123456789', object: 'o' });
    const good = { format: 1, shards: [shard('0-8191'), shard('8192-16383')] };
    expect(parseManifest(good)).to.not.have.property('error');
    expect(parseManifest({ ...good, format: 2 })).to.have.property('error');
    expect(parseManifest({ format: 1, shards: [shard('0-8191')] }))
      .to.have.property('error')
      .that.matches(/cover 8192 of 16384/);
    expect(parseManifest({ format: 1, shards: [{ ...shard('0-16383'), crc64: 'x' }] }))
      .to.have.property('error')
      .that.matches(/shard 0/);
    expect(parseManifest('text')).to.have.property('error');
  });
});
