// OpenAPI schema of cache.redis.io/v1beta1 RedisClusterBackup, and of the object store both it
// and RedisCluster's spec.backup name, checked against backup-v1beta1.ts at compile time.
import type {
  BackupShardStatus,
  BackupStorageSpec,
  RedisClusterBackupSpec,
  RedisClusterBackupStatus,
} from './backup-v1beta1.ts';
import type { JSONSchemaProps, SchemaFor } from './schema-types.ts';
import { conditionsSchema, secretRefSchema } from './schema-k8s.ts';

export const backupStorageSchema: SchemaFor<BackupStorageSpec> = {
  type: 'object',
  description: 'Where the backup is written: an S3-compatible object store.',
  required: ['s3'],
  properties: {
    s3: {
      type: 'object',
      description: 'An S3 bucket (AWS S3, or an S3-compatible server such as MinIO or SeaweedFS).',
      required: ['bucket', 'credentialsSecretRef'],
      properties: {
        endpoint: {
          type: 'string',
          maxLength: 2048,
          description: "The server's URL, e.g. https://minio.storage:9000; absent for AWS S3.",
          'x-kubernetes-validations': [
            {
              rule: "self.matches('^https?://[^\\\\s]+$')",
              message: 'must be an http:// or https:// URL such as https://minio.storage:9000',
            },
          ],
        },
        bucket: { type: 'string', minLength: 3, maxLength: 63, description: 'The bucket; it must exist.' },
        prefix: {
          type: 'string',
          maxLength: 512,
          description: "Prepended to every object's key: <prefix>/<namespace>/<cluster>/<backup>/.",
        },
        region: { type: 'string', maxLength: 64, description: 'The region; us-east-1 when absent.' },
        forcePathStyle: {
          type: 'boolean',
          description: 'Bucket in the path (/bucket/key) rather than the host name; true by default with an endpoint.',
        },
        credentialsSecretRef: secretRefSchema(
          'Secret holding the keys: accessKeyId and secretAccessKey (and sessionToken, optional).',
        ),
        caSecretRef: secretRefSchema(
          "Secret holding ca.crt: the CA of the endpoint's certificate, when not a public one.",
        ),
      },
    },
  },
};

const shardStatus: SchemaFor<BackupShardStatus> = {
  type: 'object',
  required: ['slots', 'keys', 'bytes', 'crc64', 'object'],
  properties: {
    slots: { type: 'string', description: 'The hash slots the shard served, e.g. 0-5460.' },
    keys: { type: 'integer', format: 'int64', description: 'Keys in the snapshot.' },
    bytes: { type: 'integer', format: 'int64', description: 'Size of the stored snapshot.' },
    crc64: { type: 'string', description: 'CRC-64 of the stored snapshot, hex.' },
    object: { type: 'string', description: "The snapshot's key in the bucket." },
  },
};

export const backupSpecSchema: SchemaFor<RedisClusterBackupSpec> = {
  type: 'object',
  description: 'Which RedisCluster to back up, and where to. Cannot change once created.',
  required: ['clusterName', 'storage'],
  properties: {
    clusterName: {
      type: 'string',
      minLength: 1,
      maxLength: 63,
      description: 'The RedisCluster of the same namespace to back up.',
    },
    storage: backupStorageSchema,
  },
  'x-kubernetes-validations': [
    {
      rule: 'self == oldSelf',
      message: 'spec cannot change: a backup is taken once; create another RedisClusterBackup instead',
    },
  ],
};

export const backupStatusSchema: SchemaFor<RedisClusterBackupStatus> = {
  type: 'object',
  description: 'Progress and result of the backup. Written by the operator only.',
  properties: {
    phase: {
      type: 'string',
      enum: ['Pending', 'Running', 'Completed', 'Failed'],
      description: 'Pending, Running, Completed or Failed.',
    },
    startedAt: { type: 'string', format: 'date-time', description: 'When the first shard was started.' },
    completedAt: { type: 'string', format: 'date-time', description: 'When the backup completed or failed.' },
    shards: {
      type: 'array',
      description: 'Each shard stored so far: its slots, key count, size, checksum and object.',
      'x-kubernetes-list-type': 'atomic',
      items: shardStatus,
    },
    message: { type: 'string', description: 'Progress, or why the backup failed.' },
    conditions: conditionsSchema,
  },
};

export const rootSchemaBackup: JSONSchemaProps = {
  type: 'object',
  description: 'RedisClusterBackup is one backup of a RedisCluster: a snapshot of each shard in an object store.',
  properties: {
    apiVersion: { type: 'string', description: 'APIVersion of this object: cache.redis.io/v1beta1.' },
    kind: { type: 'string', description: 'Kind of this object: RedisClusterBackup.' },
    metadata: { type: 'object' },
    spec: backupSpecSchema,
    status: backupStatusSchema,
  },
  required: ['spec'],
};
