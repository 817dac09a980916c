import { expect } from 'chai';
import type { RedisClusterStatus, RestoreStatus } from '../../../shared/core/api/v1beta1.ts';
import { carryBackupStatus, engineReady, withRestore } from '../../../shared/core/backup/restore-status.ts';

const condition = (type: string, status: 'True' | 'False', reason: string) => ({
  type,
  status,
  reason,
  message: 'm',
  lastTransitionTime: '2026-12-04T10:00:00Z',
});
const ready: RedisClusterStatus = {
  phase: 'Running',
  conditions: [
    condition('Ready', 'True', 'ClusterReady'),
    condition('Progressing', 'False', 'Idle'),
    condition('Degraded', 'False', 'AsExpected'),
  ],
};
const now = '2026-12-04T11:00:00.000Z';
const running: RestoreStatus = {
  backupName: 'b',
  phase: 'Running',
  shardsRestored: 1,
  shards: 3,
  message: 'restored 1 of 3',
};

describe('backup/restore-status', () => {
  it('keeps Ready False (Restoring) and the phase Creating while the restore runs', () => {
    const status = withRestore(ready, running, now);
    expect(engineReady(status)).to.equal(false);
    expect(status.phase).to.equal('Creating');
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).to.deep.equal([
      ['Ready', 'False', 'Restoring'],
      ['Progressing', 'True', 'Restoring'],
      ['Degraded', 'False', 'AsExpected'],
    ]);
    expect(status.conditions?.[0]?.message).to.equal('restoring from RedisClusterBackup b: restored 1 of 3');
    expect(status.conditions?.[0]?.lastTransitionTime).to.equal(now);
    expect(status.conditions?.[2]?.lastTransitionTime).to.equal('2026-12-04T10:00:00Z');
    expect(status.restore).to.equal(running);
  });

  it('says RestoreFailed on Ready and Degraded when the restore failed', () => {
    const status = withRestore(ready, { backupName: 'b', phase: 'Failed', message: 'shard 1 is corrupt' }, now);
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).to.deep.equal([
      ['Ready', 'False', 'RestoreFailed'],
      ['Progressing', 'False', 'Idle'],
      ['Degraded', 'True', 'RestoreFailed'],
    ]);
  });

  it('leaves the status as the engine made it once the restore completed, with its record', () => {
    const done: RestoreStatus = { backupName: 'b', phase: 'Completed', shards: 3, shardsRestored: 3 };
    expect(withRestore(ready, done, now)).to.deep.equal({ ...ready, restore: done });
    expect(withRestore(ready, undefined, now)).to.equal(ready);
    expect(carryBackupStatus(ready, { restore: done })).to.deep.equal({ ...ready, restore: done });
  });
});
