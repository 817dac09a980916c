// cache.redis.io/v1beta1 RedisClusterBackup: one backup of one RedisCluster, written to an
// S3-compatible object store shard by shard. Created by a user, or by the cluster's
// spec.backup.schedule (then owned by the cluster). The schema (schema-backup.ts) is checked
// against these types at compile time.
import type { Condition, ObjectMeta } from './k8s-types.ts';

export interface S3StorageSpec {
  /** An S3-compatible server's URL; absent for AWS S3. */
  endpoint?: string;
  bucket: string;
  /** Prepended to every object's key. */
  prefix?: string;
  region?: string;
  forcePathStyle?: boolean;
  /** Secret with `accessKeyId` and `secretAccessKey` (and optionally `sessionToken`). */
  credentialsSecretRef: { name: string };
  /** Secret with `ca.crt`: the CA of the endpoint's certificate, when it is not a public one. */
  caSecretRef?: { name: string };
}

export interface BackupStorageSpec {
  s3: S3StorageSpec;
}

export interface RedisClusterBackupSpec {
  /** The RedisCluster of the same namespace to back up. */
  clusterName: string;
  storage: BackupStorageSpec;
}

export type BackupPhase = 'Pending' | 'Running' | 'Completed' | 'Failed';

export interface BackupShardStatus {
  /** The slot ranges the shard served, `0-5460,5462`. */
  slots: string;
  keys: number;
  bytes: number;
  /** CRC-64 (Redis' Jones polynomial) of the stored snapshot, hex. */
  crc64: string;
  /** The snapshot's key in the bucket. */
  object: string;
}

export interface RedisClusterBackupStatus {
  phase?: BackupPhase;
  startedAt?: string;
  completedAt?: string;
  shards?: BackupShardStatus[];
  /** For people: progress, or why the backup failed (never a secret nor a server's reply). */
  message?: string;
  conditions?: Condition[];
}

export interface RedisClusterBackup {
  apiVersion: 'cache.redis.io/v1beta1';
  kind: 'RedisClusterBackup';
  metadata: ObjectMeta;
  spec: RedisClusterBackupSpec;
  status?: RedisClusterBackupStatus;
}
