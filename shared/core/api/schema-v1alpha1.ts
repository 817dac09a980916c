// OpenAPI schema of cache.redis.io/v1alpha1 (the tutorial's fields), checked against v1alpha1.ts.
// No defaults: a v1alpha1 object read as v1beta1 and back must come out as it went in.
import type { RedisClusterSpecV1alpha1, RedisClusterStatusV1alpha1 } from './v1alpha1.ts';
import type { JSONSchemaProps, SchemaFor } from './schema-types.ts';
import { configSchema } from './schema-config.ts';
import { conditionsSchema, resourcesSchema } from './schema-k8s.ts';
import { MAX_NODES, MIN_MASTERS, rootSchema } from './schema-v1beta1.ts';

const specSchemaV1alpha1: SchemaFor<RedisClusterSpecV1alpha1> = {
  type: 'object',
  description: 'The Redis Cluster the user wants (v1alpha1; v1beta1 has the full API).',
  required: ['replicas'],
  properties: {
    replicas: {
      type: 'integer',
      format: 'int32',
      maximum: MAX_NODES,
      description:
        `Number of Redis nodes, masters and replicas together (v1beta1: masters × (1 + replicasPerMaster)). At least ${MIN_MASTERS}. ` +
        'A cluster created through v1alpha1 has masters only; one whose v1beta1 spec has replicas must keep a multiple of (1 + replicasPerMaster).',
      'x-kubernetes-validations': [
        {
          rule: `self >= ${MIN_MASTERS}`,
          message: `a Redis Cluster needs at least ${MIN_MASTERS} Redis nodes (masters)`,
        },
      ],
    },
    resources: resourcesSchema('each Redis container'),
    config: configSchema,
    storageClass: {
      type: 'string',
      maxLength: 253,
      description: "StorageClass of the PVCs; the cluster's default class when absent. Cannot change after creation.",
    },
  },
  'x-kubernetes-validations': [
    {
      rule: 'has(self.storageClass) == has(oldSelf.storageClass) && (!has(self.storageClass) || self.storageClass == oldSelf.storageClass)',
      message: 'storageClass cannot change: existing PersistentVolumeClaims keep the class they were created with',
      fieldPath: '.storageClass',
      reason: 'FieldValueForbidden',
    },
  ],
};

const statusSchemaV1alpha1: SchemaFor<RedisClusterStatusV1alpha1> = {
  type: 'object',
  description: 'What the operator last observed.',
  properties: {
    conditions: conditionsSchema,
    masterPod: { type: 'string', description: 'A master pod the operator uses as entry point.' },
    readyReplicas: {
      type: 'integer',
      format: 'int32',
      description: 'Redis nodes that are ready (v1beta1: status.readyNodes).',
    },
  },
};

export const rootSchemaV1alpha1: JSONSchemaProps = rootSchema(
  'v1alpha1',
  'RedisCluster (v1alpha1, the original API; prefer v1beta1). Converted to v1beta1 without loss.',
  specSchemaV1alpha1,
  statusSchemaV1alpha1,
);
