// OpenAPI schema of cache.redis.io/v1beta1, checked against the types in v1beta1.ts. Every
// field has a description (what `kubectl explain redisclusters.spec` prints); defaults here are
// applied by the API server and, for code and tests, by defaults.ts.
import { DEFAULT_VERSION, SUPPORTED_VERSIONS, UNSUPPORTED_VERSION_MESSAGE } from './versions.ts';
import type { RedisClusterSpec, RedisClusterStatus } from './v1beta1.ts';
import type { JSONSchemaProps, SchemaFor } from './schema-types.ts';
import { configSchema } from './schema-config.ts';
import { backupStorageSchema } from './schema-backup.ts';
import { envSchema, podSecurityContextSchema } from './schema-pod.ts';
import {
  affinitySchema,
  networkPolicyPeerSchema,
  conditionsSchema,
  resourcesSchema,
  secretRefSchema,
  stringMap,
  tolerationsSchema,
  topologySpreadConstraintsSchema,
} from './schema-k8s.ts';

export const MIN_MASTERS = 3;
export const MAX_MASTERS = 500;
export const MAX_REPLICAS_PER_MASTER = 5;
export const MAX_NODES = 1000;
export const MAX_NAME_LENGTH = 40;

export const specSchemaV1beta1: SchemaFor<RedisClusterSpec> = {
  type: 'object',
  description: 'The Redis Cluster the user wants: its shape, version, resources and placement.',
  properties: {
    masters: {
      type: 'integer',
      format: 'int32',
      default: 3,
      maximum: MAX_MASTERS,
      description:
        `Number of masters (shards); the hash slots are spread evenly over them. At least ${MIN_MASTERS}. ` +
        '`kubectl scale` changes it; a scale-in moves the slots of the removed masters to the others first, at most half of the masters per step.',
      'x-kubernetes-validations': [
        {
          rule: `self >= ${MIN_MASTERS}`,
          message: `a Redis Cluster needs at least ${MIN_MASTERS} masters, so that the others can elect a new master after a failure`,
        },
      ],
    },
    replicasPerMaster: {
      type: 'integer',
      format: 'int32',
      default: 1,
      minimum: 0,
      maximum: MAX_REPLICAS_PER_MASTER,
      description: `Replicas of each master, 0-${MAX_REPLICAS_PER_MASTER}. 0 means no failover: losing a master loses its slots until it comes back.`,
    },
    version: {
      // A rule rather than an enum: an enum's refusal lists the values but cannot say why 6.2 is not one of them.
      type: 'string',
      default: DEFAULT_VERSION,
      maxLength: 16,
      description: `Redis version (${SUPPORTED_VERSIONS.join(', ')}; ${SUPPORTED_VERSIONS[0]} is the oldest supported). Upgrades roll one node at a time; downgrades are refused.`,
      'x-kubernetes-validations': [
        {
          rule: `self in [${SUPPORTED_VERSIONS.map((v) => `'${v}'`).join(', ')}]`,
          message: UNSUPPORTED_VERSION_MESSAGE,
        },
      ],
    },
    image: {
      type: 'string',
      maxLength: 512,
      description:
        'Redis container image; `redis:<version>` when absent. It must run the Redis version in spec.version.',
      'x-kubernetes-validations': [
        {
          rule: "self.matches('^[^\\\\s]+$')",
          message:
            'must be an image reference such as redis:7.2 or registry.example.com/redis@sha256:..., without spaces',
        },
      ],
    },
    imagePullPolicy: {
      type: 'string',
      enum: ['Always', 'IfNotPresent', 'Never'],
      description: 'Pull policy of the Redis image: Always, IfNotPresent (default) or Never.',
    },
    resources: resourcesSchema('each Redis container'),
    storage: {
      type: 'object',
      default: {},
      description: 'Persistent storage of each Redis node: one PersistentVolumeClaim per node.',
      properties: {
        className: {
          type: 'string',
          maxLength: 253,
          description:
            "StorageClass of the PVCs; the cluster's default class when absent. Cannot change after creation.",
        },
        size: {
          type: 'string',
          default: '1Gi',
          maxLength: 64,
          description:
            'Size of each PVC, e.g. 10Gi. It may grow (when the StorageClass allows volume expansion), never shrink.',
          'x-kubernetes-validations': [
            {
              rule: "isQuantity(self) && quantity(self).isGreaterThan(quantity('0'))",
              message: 'must be a positive quantity such as 10Gi',
            },
          ],
        },
        reclaim: {
          type: 'string',
          default: 'Retain',
          enum: ['Retain', 'Delete'],
          description:
            'What happens to the PVCs when the RedisCluster is deleted: Retain (default) keeps them and their data, Delete removes them.',
        },
      },
      'x-kubernetes-validations': [
        {
          rule: 'has(self.className) == has(oldSelf.className) && (!has(self.className) || self.className == oldSelf.className)',
          message:
            'storage.className cannot change: existing PersistentVolumeClaims keep the class they were created with',
          reason: 'FieldValueForbidden',
        },
        {
          rule: '!has(self.size) || !has(oldSelf.size) || !isQuantity(self.size) || !isQuantity(oldSelf.size) || quantity(self.size).compareTo(quantity(oldSelf.size)) >= 0',
          message: 'storage.size cannot shrink: a PersistentVolumeClaim can only grow',
          reason: 'FieldValueForbidden',
        },
      ],
    },
    config: configSchema,
    auth: {
      type: 'object',
      description: 'Authentication of clients and nodes (requirepass and masterauth).',
      properties: {
        secretRef: {
          type: 'object',
          description:
            'Secret in the same namespace holding the password. When absent the operator generates `<name>-auth` with key `password`.',
          required: ['name'],
          properties: {
            name: {
              type: 'string',
              maxLength: 253,
              pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
              description: 'Name of the Secret.',
            },
            key: {
              type: 'string',
              default: 'password',
              maxLength: 253,
              description: 'Key of the password in the Secret; `password` by default.',
            },
          },
        },
      },
    },
    tls: {
      type: 'object',
      description:
        'TLS on the client port (6379), for replication and the cluster bus, from a kubernetes.io/tls Secret (tls.crt, tls.key, ca.crt, as cert-manager writes it). Set at creation only; a renewed certificate in the Secret is reloaded without a restart.',
      required: ['secretRef'],
      properties: {
        secretRef: secretRefSchema('The Secret in the same namespace holding tls.crt, tls.key and ca.crt.'),
        plaintext: {
          type: 'boolean',
          default: false,
          description:
            'Keep a plaintext listener on port 6380 beside TLS on 6379, for clients moving to TLS; false (off) by default.',
        },
      },
    },
    exporter: {
      type: 'object',
      description: 'The Prometheus exporter sidecar (redis_exporter) in each Redis pod.',
      properties: {
        enabled: { type: 'boolean', default: false, description: 'Run the exporter sidecar; false by default.' },
        image: {
          type: 'string',
          maxLength: 512,
          description: "Exporter image; the operator's pinned redis_exporter when absent.",
        },
        resources: resourcesSchema('the exporter container'),
      },
    },
    affinity: affinitySchema,
    tolerations: tolerationsSchema,
    nodeSelector: stringMap("Node labels the Redis pods must run on, as in a Pod's spec.nodeSelector."),
    topologySpreadConstraints: topologySpreadConstraintsSchema,
    podDisruptionBudget: {
      type: 'object',
      description:
        'The PodDisruptionBudget the operator keeps for the Redis pods, so that a node drain does not take a shard down.',
      properties: {
        enabled: { type: 'boolean', default: true, description: 'Keep a PodDisruptionBudget; true by default.' },
        maxUnavailable: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          description: 'Pods that may be evicted at once; 1 when absent.',
        },
      },
    },
    networkPolicy: {
      type: 'object',
      description:
        'The NetworkPolicy the operator keeps for the Redis pods: the Redis port from the clients below, the operator and the pods of this cluster; the cluster bus only between the pods of this cluster; the exporter port from the monitoring namespace. Enforced only where the network plugin enforces NetworkPolicy.',
      properties: {
        enabled: { type: 'boolean', default: true, description: 'Keep a NetworkPolicy; true by default.' },
        clients: {
          type: 'array',
          description:
            "Who may reach the Redis port, as a NetworkPolicy's from. Absent: every pod of this RedisCluster's namespace; [] admits no client.",
          'x-kubernetes-list-type': 'atomic',
          maxItems: 32,
          items: networkPolicyPeerSchema,
        },
        monitoringNamespace: {
          type: 'string',
          default: 'monitoring',
          maxLength: 63,
          description: 'Namespace whose pods may scrape the exporter port (with spec.exporter.enabled).',
        },
      },
    },
    externalAccess: {
      type: 'object',
      description:
        "Reach the cluster from outside Kubernetes: one Service per Redis node (`<pod>-external`) for its client and cluster bus ports, and each node announces that Service's address (cluster-announce-ip, -port, -bus-port), so a cluster client outside follows MOVED and ASK redirects to addresses it can reach. Nodes inside use the same addresses. NodePort announces the pod's node's ExternalIP (else its InternalIP) and the node ports; LoadBalancer announces the load balancer's IP and ports 6379 and 16379. The cluster bus has no authentication: keep the node ports or load balancers off untrusted networks. May be set and removed on a live cluster.",
      required: ['type'],
      properties: {
        type: {
          type: 'string',
          enum: ['NodePort', 'LoadBalancer'],
          description: "NodePort or LoadBalancer: the type of every node's Service.",
        },
        annotations: stringMap("Annotations of every node's Service, such as a cloud's load-balancer settings."),
      },
    },
    priorityClassName: {
      type: 'string',
      maxLength: 253,
      description: "PriorityClass of the Redis pods, as in a Pod's spec.priorityClassName.",
    },
    securityContext: podSecurityContextSchema,
    env: envSchema,
    paused: {
      type: 'boolean',
      description: 'When true the operator observes and reports status but changes nothing; for maintenance by hand.',
    },
    backup: {
      type: 'object',
      description:
        'Scheduled backups: a RedisClusterBackup named <cluster>-<yyyymmddhhmm>, owned by this cluster, at each due time.',
      required: ['schedule', 'storage'],
      properties: {
        schedule: {
          type: 'string',
          maxLength: 128,
          description: 'When to back up, a 5-field cron expression in UTC, e.g. "0 3 * * *" (daily at 03:00).',
          'x-kubernetes-validations': [
            {
              rule: "self.matches('^\\\\s*\\\\S+(\\\\s+\\\\S+){4}\\\\s*$')",
              message:
                'must be a 5-field cron expression: minute hour day-of-month month day-of-week, e.g. "0 3 * * *"',
            },
          ],
        },
        keep: {
          type: 'integer',
          format: 'int32',
          default: 7,
          minimum: 1,
          description: 'Completed scheduled backups to keep (at least 1); older ones are deleted with their files.',
        },
        storage: backupStorageSchema,
      },
    },
    restore: {
      type: 'object',
      description:
        "Create the cluster from a backup: once formed, every key of the backup's shards is restored (with its TTL), then the cluster is Ready. Set at creation only.",
      required: ['backupName'],
      properties: {
        backupName: {
          type: 'string',
          minLength: 1,
          maxLength: 253,
          description: 'A Completed RedisClusterBackup of the same namespace.',
        },
      },
    },
  },
  'x-kubernetes-validations': [
    {
      rule: `!has(self.masters) || !has(self.replicasPerMaster) || self.masters * (1 + self.replicasPerMaster) <= ${MAX_NODES}`,
      message: `a Redis Cluster has at most ${MAX_NODES} nodes: masters × (1 + replicasPerMaster) must not exceed ${MAX_NODES}`,
      fieldPath: '.masters',
    },
  ],
};

const nodeStatus: SchemaFor<NonNullable<NonNullable<RedisClusterStatus['shards']>[number]['master']>> = {
  type: 'object',
  description: 'A Redis node of the shard.',
  required: ['pod'],
  properties: {
    pod: { type: 'string', description: 'Name of the pod.' },
    nodeId: { type: 'string', description: 'Redis Cluster node ID (CLUSTER MYID).' },
    ip: { type: 'string', description: "The pod's IP." },
    externalAddress: {
      type: 'string',
      description:
        'With spec.externalAccess: the ip:port the node announces, where clients outside Kubernetes reach it.',
    },
    ready: { type: 'boolean', description: 'The pod is Ready and the node is connected to the cluster.' },
  },
};

export const statusSchemaV1beta1: SchemaFor<RedisClusterStatus> = {
  type: 'object',
  description: 'What the operator last observed. Written by the operator only.',
  properties: {
    conditions: conditionsSchema,
    observedGeneration: {
      type: 'integer',
      format: 'int64',
      description: 'The .metadata.generation this status describes.',
    },
    phase: {
      type: 'string',
      enum: ['Pending', 'Creating', 'Running', 'Scaling', 'Updating', 'Degraded', 'Failed', 'Paused', 'Deleting'],
      description:
        'One-word summary: Pending, Creating, Running, Scaling, Updating, Degraded, Failed, Paused or Deleting.',
    },
    shards: {
      type: 'array',
      description: 'Each shard: its master, its replicas and the hash slots it serves.',
      'x-kubernetes-list-type': 'atomic',
      items: {
        type: 'object',
        required: ['index'],
        properties: {
          index: { type: 'integer', format: 'int32', description: 'Index of the shard, from 0.' },
          name: { type: 'string', description: 'Name of the shard, `<cluster>-<index>`.' },
          master: nodeStatus,
          replicas: {
            type: 'array',
            description: 'Replicas of the master.',
            'x-kubernetes-list-type': 'atomic',
            items: nodeStatus,
          },
          slots: {
            type: 'array',
            description: 'Hash slot ranges the master serves, inclusive.',
            'x-kubernetes-list-type': 'atomic',
            items: {
              type: 'object',
              required: ['start', 'end'],
              properties: {
                start: { type: 'integer', format: 'int32', description: 'First slot.' },
                end: { type: 'integer', format: 'int32', description: 'Last slot.' },
              },
            },
          },
        },
      },
    },
    slotsCovered: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: 16384,
      description: 'Hash slots served by a reachable master, 0-16384; below 16384 some keys are unavailable.',
    },
    readyMasters: {
      type: 'integer',
      format: 'int32',
      description: "Masters that are ready and serve slots (the scale subresource's status replicas).",
    },
    readyReplicas: {
      type: 'integer',
      format: 'int32',
      description: 'Replicas that are ready and in sync with their master.',
    },
    readyNodes: {
      type: 'integer',
      format: 'int32',
      description: 'Redis nodes that are ready, masters and replicas together.',
    },
    selector: { type: 'string', description: 'Label selector of the Redis pods (for the scale subresource).' },
    operation: {
      type: 'object',
      description: 'The operation in progress, absent when none.',
      required: ['type'],
      properties: {
        type: {
          type: 'string',
          enum: [
            'Create',
            'ScaleOut',
            'ScaleIn',
            'AddReplicas',
            'RemoveReplicas',
            'RollingUpdate',
            'Failover',
            'Heal',
            'ResizeVolumes',
            'RotatePassword',
            'ReloadCertificates',
          ],
          description: 'What the operator is doing.',
        },
        progress: { type: 'string', description: 'For people, e.g. "migrating slots 1200/5461".' },
        startedAt: { type: 'string', format: 'date-time', description: 'When the operation started.' },
      },
    },
    masterPod: {
      type: 'string',
      description: 'A master pod the operator uses as entry point (kept for v1alpha1 clients).',
    },
    restore: {
      type: 'object',
      description: 'The restore of spec.restore: where it is, or why it stopped.',
      required: ['backupName', 'phase'],
      properties: {
        backupName: { type: 'string', description: 'The backup being restored.' },
        phase: {
          type: 'string',
          enum: ['Running', 'Completed', 'Failed'],
          description: 'Running, Completed or Failed.',
        },
        shardsRestored: { type: 'integer', format: 'int32', description: "The backup's shards restored so far." },
        shards: { type: 'integer', format: 'int32', description: "The backup's shards." },
        keys: { type: 'integer', format: 'int64', description: 'Keys written so far.' },
        message: { type: 'string', description: 'Progress, or why the restore stopped.' },
      },
    },
  },
};

/** The root schema of a version around its spec and status, with the rule on the name. */
export function rootSchema(
  version: string,
  description: string,
  spec: JSONSchemaProps,
  status: JSONSchemaProps,
): JSONSchemaProps {
  return {
    type: 'object',
    description,
    properties: {
      apiVersion: { type: 'string', description: `APIVersion of this object: cache.redis.io/${version}.` },
      kind: { type: 'string', description: 'Kind of this object: RedisCluster.' },
      metadata: {
        type: 'object',
        properties: {
          name: { type: 'string', description: `Name of the RedisCluster, at most ${MAX_NAME_LENGTH} characters.` },
        },
      },
      spec,
      status,
    },
    required: ['spec'],
    'x-kubernetes-validations': [
      {
        rule: `self.metadata.name.size() <= ${MAX_NAME_LENGTH}`,
        message: `metadata.name must be at most ${MAX_NAME_LENGTH} characters: the names of pods, services and volumes are built from it`,
        fieldPath: '.metadata.name',
      },
    ],
  };
}

export const rootSchemaV1beta1: JSONSchemaProps = rootSchema(
  'v1beta1',
  'RedisCluster is a Redis Cluster managed by knredis: masters, their replicas, and the hash slots spread over them.',
  specSchemaV1beta1,
  statusSchemaV1beta1,
);
