// A backup in the cluster's reconcile (one key per cluster, so never beside a scaling step of
// the same cluster): a backup starts on a Ready cluster; while it runs, each pass stores one
// shard's snapshot and asks the engine to hold what would change the shards under it (slot
// moves and rolling restarts), then requeues to follow. The rest of the engine runs as usual:
// a failed master is still failed over, a lost pod replaced, the status kept honest. The end
// writes the manifest and Completed; any failure (the slots moved, a shard with no reachable
// master, a snapshot or the store failing) writes Failed with a message that names what failed
// and carries neither a secret nor a server's text, with one Warning Event on the backup.
//   1: the backup in progress (none: the engine runs free)
//   2: not started and the cluster not Ready: wait (Pending)
//   3: Running, then the next shard from a replica (else the master), or the manifest
import type { RedisClusterBackup, RedisClusterBackupStatus } from '../../shared/core/api/backup-v1beta1.ts';
import { BACKUP_KIND, API_VERSION_V1BETA1 } from '../../shared/core/api/group.ts';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { backupDir, backupShards, manifestObject, shardObject } from '../../shared/core/backup/layout.ts';
import { MANIFEST_FORMAT, type BackupManifest } from '../../shared/core/backup/manifest.ts';
import { activeBackupOf, isReady, nextBackupStep } from '../../shared/core/backup/plan-backup.ts';
import type { PodPlacement } from '../../shared/core/cluster/desired.ts';
import { addressKey, type Address } from '../../shared/core/cluster/topology.ts';
import { RdbFormatError } from '../../shared/core/rdb/errors.ts';
import { requeueAfter, noted, REQUEUE_AFTER_STEPS_MS, type Outcome } from '../../shared/core/outcome.ts';
import { storeSnapshot } from '../../shared/io/backup/store-snapshot.ts';
import type { BackupClient } from '../../shared/io/kube/backup-client.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';
import { ObjectStoreError, type ObjectStore } from '../../shared/io/object-store.ts';
import type { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { fetchSnapshot, SnapshotError } from '../../shared/io/redis/snapshot.ts';
import { BackupSetupError, openStore } from './backup-store.ts';
import { recorder, type Recorder } from './events.ts';
import type { TlsAccess } from './tls.ts';

export interface BackupPassInput {
  readonly kube: KubeClient;
  readonly backups: BackupClient;
  readonly cluster: RedisCluster;
  /** The pods the engine would observe. */
  readonly pods: readonly PodPlacement[];
  readonly pool: NodePool;
  readonly tls?: TlsAccess;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly now: () => number;
  /** The namespace's backups, listed once for the whole reconcile (the schedule step reads them too). */
  readonly listed: readonly RedisClusterBackup[];
}

/** Free: no backup runs after this pass. Else what the engine holds, and the outcome that follows the backup. */
export type BackupPassResult =
  { readonly running: false } | { readonly running: true; readonly hold: string; readonly outcome: Outcome };

const free: BackupPassResult = { running: false };

export async function runBackupPass(input: BackupPassInput): Promise<BackupPassResult> {
  const { cluster, backups } = input;
  const namespace = cluster.metadata.namespace ?? '';
  // 1: the backup in progress
  const backup = activeBackupOf(input.listed, cluster.metadata.name ?? '');
  if (!backup) return free;
  const status = backup.status ?? {};
  const events = backupRecorder(input, backup);
  const write = (next: RedisClusterBackupStatus) => backups.replaceStatus(backup, next, input.signal);
  // 2: a backup starts on a Ready cluster; once running, the shards' layout is what it checks
  if (!isReady(cluster.status) && status.phase !== 'Running') {
    if (status.message !== WAITING) await write({ ...status, phase: 'Pending', message: WAITING });
    return free;
  }
  let running = false;
  // 3: the next shard, or the end
  let store: ObjectStore | undefined;
  try {
    store = await openStore(input.kube, namespace, backup.spec.storage, input.signal);
    const dir = backupDir(namespace, cluster.metadata.name ?? '', backup.metadata.name ?? '');
    // before the first snapshot: the bucket is there and the keys are taken (a missing bucket
    // is said as such; some servers answer a write to one with a bare 500)
    if (status.phase !== 'Running') await store.list(dir, { signal: input.signal });
    const started: RedisClusterBackupStatus =
      status.phase === 'Running'
        ? status
        : { phase: 'Running', startedAt: new Date(input.now()).toISOString(), shards: [], message: 'starting' };
    const shards = backupShards(await observe(input.pods, input.pool));
    const step = nextBackupStep(started.shards ?? [], shards);
    if (step.kind === 'fail') {
      await fail(input, backup, events, step.message);
    } else if (step.kind === 'shard') {
      const { shard, index } = step;
      const where = `shard ${index} (slots ${shard.slots}) from ${shard.source.pod}`;
      const password = input.pool.options.passwordOf?.get(addressKey(shard.source.address)) ?? input.pool.auth.password;
      const stored = await describeFailures(where, async () => {
        const snapshot = await fetchSnapshot({
          host: shard.source.address.ip,
          port: shard.source.address.port,
          auth: { ...input.pool.auth, ...(password ? { password } : {}) },
          ...(input.tls ? { tls: input.tls.connection } : {}),
          signal: input.signal,
        });
        return storeSnapshot(store!, shardObject(dir, index), snapshot.stream, input.signal);
      });
      const done = [
        ...(started.shards ?? []),
        {
          slots: shard.slots,
          keys: stored.keys,
          bytes: stored.bytes,
          crc64: stored.crc64,
          object: shardObject(dir, index),
        },
      ];
      await write({ ...started, shards: done, message: `stored ${done.length} of ${shards.length} shard(s)` });
      running = true;
      input.log.info(
        { backup: backup.metadata.name, shard: index, keys: stored.keys, bytes: stored.bytes },
        'backup: shard stored',
      );
    } else {
      const completedAt = new Date(input.now()).toISOString();
      const manifest: BackupManifest = {
        format: MANIFEST_FORMAT,
        namespace,
        cluster: cluster.metadata.name ?? '',
        backup: backup.metadata.name ?? '',
        redisVersion: await redisVersionOf(input.pool, input.pods[0]?.address),
        completedAt,
        shards: started.shards ?? [],
      };
      await store.putJson(manifestObject(dir), manifest, { signal: input.signal });
      const keys = manifest.shards.reduce((sum, s) => sum + s.keys, 0);
      const message = `stored ${manifest.shards.length} shard(s), ${keys} key(s)`;
      await write({ ...started, phase: 'Completed', completedAt, message });
      await events.normal('BackupCompleted', message);
    }
  } catch (error) {
    if (input.signal.aborted) throw error;
    await fail(input, backup, events, failureMessage(error));
  } finally {
    store?.close();
  }
  if (!running) return free;
  return {
    running: true,
    hold: `backup ${backup.metadata.name ?? ''} is reading the shards`,
    outcome: noted(requeueAfter(REQUEUE_AFTER_STEPS_MS), { summary: 'backup in progress' }),
  };
}

const WAITING = 'waiting for the cluster to be Ready';

/**
 * A deleted cluster's unfinished backups fail (none would ever finish: only the cluster's
 * reconcile carries them on), each with one Warning Event, instead of staying Pending or
 * Running for good.
 */
export async function failBackupsOfDeleted(
  input: Pick<BackupPassInput, 'kube' | 'backups' | 'cluster' | 'log' | 'signal' | 'now'>,
): Promise<void> {
  const namespace = input.cluster.metadata.namespace ?? '';
  const name = input.cluster.metadata.name ?? '';
  for (;;) {
    const backup = activeBackupOf(await input.backups.list(namespace, input.signal), name);
    if (!backup) return;
    await fail(input, backup, backupRecorder(input, backup), DELETED);
  }
}

const DELETED = 'the RedisCluster was deleted before the backup completed';

/** Events about a backup go on the backup (the list's items carry no apiVersion or kind). */
function backupRecorder(
  input: Pick<BackupPassInput, 'kube' | 'log' | 'now' | 'signal'>,
  backup: RedisClusterBackup,
): Recorder {
  const object = { ...backup, apiVersion: API_VERSION_V1BETA1, kind: BACKUP_KIND };
  return recorder(input.kube, object, input.log, input.now, input.signal);
}

async function fail(
  input: Pick<BackupPassInput, 'backups' | 'now' | 'signal' | 'log'>,
  backup: RedisClusterBackup,
  events: Recorder,
  message: string,
): Promise<void> {
  const status = backup.status ?? {};
  const completedAt = new Date(input.now()).toISOString();
  await input.backups.replaceStatus(backup, { ...status, phase: 'Failed', completedAt, message }, input.signal);
  await events.warning('BackupFailed', message);
  input.log.warn({ backup: backup.metadata.name }, `backup failed: ${message}`);
}

/** A snapshot's or a reader's failure, said with the shard it happened to (never the node's reply). */
class ShardError extends Error {}

async function describeFailures<T>(where: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SnapshotError) throw new ShardError(`could not take the snapshot of ${where}`);
    if (error instanceof RdbFormatError)
      throw new ShardError(`the snapshot of ${where} is not a valid RDB file (truncated or corrupt)`);
    if (error instanceof ObjectStoreError) throw new ShardError(`storing ${where} failed: ${error.message}`);
    throw error;
  }
}

/** Messages built from typed errors only: the store's carry its operation, bucket, key and code. */
function failureMessage(error: unknown): string {
  if (error instanceof ShardError || error instanceof BackupSetupError || error instanceof ObjectStoreError)
    return error.message;
  return `the backup failed unexpectedly (${(error as Error)?.name ?? 'error'})`;
}

async function redisVersionOf(pool: NodePool, address: Address | undefined): Promise<string> {
  if (!address) return '';
  const info = String(await pool.client(address).info('server'));
  return /^redis_version:(\S+)/m.exec(info)?.[1] ?? '';
}
