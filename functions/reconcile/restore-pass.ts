// A restore in the reconcile of a cluster created with spec.restore, once the engine has formed
// it (every slot covered, every node ready) and before it is Ready: the backup's manifest is
// read and every shard's object is checked against it (size and CRC-64) before any key is
// written, so a corrupt or incomplete backup is refused whole; then one shard per pass is
// restored (restoreRecords: each key with its TTL, to the master owning its slot now, whatever
// the master count), with its function libraries. A failure is reported (status.restore, the
// Ready condition, one Warning Event) and tried again later from the check: keys already
// written are kept (RESTORE without REPLACE), so a retry writes only what is missing.
//   1: the backup object, Completed   2: its manifest   3: check every object, or restore the next shard
import type { RedisClusterBackup } from '../../shared/core/api/backup-v1beta1.ts';
import type { RedisCluster, RestoreStatus } from '../../shared/core/api/v1beta1.ts';
import { backupDir, manifestObject } from '../../shared/core/backup/layout.ts';
import { parseManifest, type BackupManifest } from '../../shared/core/backup/manifest.ts';
import type { Address } from '../../shared/core/cluster/topology.ts';
import { crc64Hex, crc64Init, crc64Update } from '../../shared/core/rdb/crc64.ts';
import { RdbFormatError } from '../../shared/core/rdb/errors.ts';
import { readRdb } from '../../shared/core/rdb/read-rdb.ts';
import type { BackupClient } from '../../shared/io/kube/backup-client.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';
import { ObjectNotFoundError, ObjectStoreError, type ObjectStore } from '../../shared/io/object-store.ts';
import type { NodePool } from '../../shared/io/redis/connection.ts';
import { restoreFunctions } from '../../shared/io/redis/restore-functions.ts';
import { restoreRecords } from '../../shared/io/redis/restore-keys.ts';
import { BackupSetupError, openStore } from './backup-store.ts';
import type { Recorder } from './events.ts';

export interface RestorePassInput {
  readonly kube: KubeClient;
  readonly backups: BackupClient;
  readonly cluster: RedisCluster;
  readonly pool: NodePool;
  /** Any node of the cluster: slot owners are read from it. */
  readonly seed: Address;
  readonly events: Recorder;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

/** What a restore step found wrong; the message names the backup and shard, never a server's text. */
class RestoreError extends Error {}

export async function runRestorePass(input: RestorePassInput): Promise<RestoreStatus> {
  const backupName = input.cluster.spec.restore?.backupName ?? '';
  const previous = input.cluster.status?.restore;
  const state: RestoreStatus =
    previous?.backupName === backupName && previous.phase === 'Running'
      ? previous
      : { backupName, phase: 'Running', message: 'checking the backup' };
  let store: ObjectStore | undefined;
  try {
    // 1: the backup object
    const namespace = input.cluster.metadata.namespace ?? '';
    const backup = await input.backups.get(namespace, backupName, input.signal);
    if (!backup) throw new RestoreError(`RedisClusterBackup ${backupName} was not found in namespace ${namespace}`);
    if (backup.status?.phase !== 'Completed')
      throw new RestoreError(`RedisClusterBackup ${backupName} is ${backup.status?.phase ?? 'Pending'}, not Completed`);
    // 2: its manifest
    store = await openStore(input.kube, namespace, backup.spec.storage, input.signal);
    const manifest = await readManifest(store, backup, input.signal);
    // 3: every object checked first; then one shard a pass
    if (state.shardsRestored === undefined) {
      for (const [i, shard] of manifest.shards.entries()) await verifyShard(store, i, shard, input.signal);
      return {
        ...state,
        shardsRestored: 0,
        shards: manifest.shards.length,
        keys: 0,
        message: `checked ${manifest.shards.length} shard(s)`,
      };
    }
    const index = state.shardsRestored;
    const shard = manifest.shards[index]!;
    const records = readRdb(await store.get(shard.object, { signal: input.signal }));
    const target = { pool: input.pool, seed: input.seed };
    const written = await restoreRecords(target, records, { signal: input.signal });
    await restoreFunctions(target, records.info.functions);
    const keys = (state.keys ?? 0) + written.restored + written.skippedExisting;
    const restored = index + 1;
    input.log.info({ backup: backupName, shard: index, ...written }, 'restore: shard restored');
    if (restored < manifest.shards.length)
      return {
        ...state,
        shardsRestored: restored,
        keys,
        message: `restored ${restored} of ${manifest.shards.length} shard(s), ${keys} key(s)`,
      };
    const message = `restored ${restored} shard(s), ${keys} key(s)`;
    await input.events.normal('RestoreCompleted', `from RedisClusterBackup ${backupName}: ${message}`);
    return { ...state, phase: 'Completed', shardsRestored: restored, keys, message };
  } catch (error) {
    if (input.signal.aborted) throw error;
    const message = failureMessage(error, backupName);
    await input.events.warning('RestoreFailed', `from RedisClusterBackup ${backupName}: ${message}`);
    input.log.warn({ backup: backupName }, `restore failed: ${message}`);
    return { backupName, phase: 'Failed', message };
  } finally {
    store?.close();
  }
}

async function readManifest(
  store: ObjectStore,
  backup: RedisClusterBackup,
  signal: AbortSignal,
): Promise<BackupManifest> {
  const dir = backupDir(backup.metadata.namespace ?? '', backup.spec.clusterName, backup.metadata.name ?? '');
  let value: unknown;
  try {
    value = await store.getJson(manifestObject(dir), { signal });
  } catch (error) {
    if (error instanceof ObjectNotFoundError)
      throw new RestoreError(`the backup's manifest ${manifestObject(dir)} is not in the bucket`);
    if (error instanceof SyntaxError)
      throw new RestoreError(`the backup's manifest ${manifestObject(dir)} is not JSON`);
    throw error;
  }
  const manifest = parseManifest(value);
  if ('error' in manifest) throw new RestoreError(`the backup's manifest is unusable: ${manifest.error}`);
  return manifest;
}

async function verifyShard(
  store: ObjectStore,
  index: number,
  shard: BackupManifest['shards'][number],
  signal: AbortSignal,
): Promise<void> {
  let crc = crc64Init;
  let bytes = 0;
  try {
    for await (const chunk of await store.get(shard.object, { signal })) {
      crc = crc64Update(crc, chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
  } catch (error) {
    if (error instanceof ObjectNotFoundError)
      throw new RestoreError(`shard ${index} (${shard.object}) is not in the bucket`);
    throw error;
  }
  if (bytes !== shard.bytes || crc64Hex(crc) !== shard.crc64)
    throw new RestoreError(
      `shard ${index} (${shard.object}) is corrupt: ${bytes !== shard.bytes ? `${bytes} bytes where the manifest says ${shard.bytes}` : 'its CRC-64 differs from the manifest'}`,
    );
}

function failureMessage(error: unknown, backupName: string): string {
  if (error instanceof RestoreError || error instanceof BackupSetupError || error instanceof ObjectStoreError)
    return error.message;
  if (error instanceof RdbFormatError) return `a snapshot of ${backupName} is not a valid RDB file`;
  return `the restore failed unexpectedly (${(error as Error)?.name ?? 'error'})`;
}
