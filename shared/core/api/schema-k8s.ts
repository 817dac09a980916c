// Schemas of the Kubernetes core types embedded in the RedisCluster API, written the way
// controller-gen renders them (with shorter descriptions), each checked against its type.
import type {
  Affinity,
  Condition,
  LabelSelector,
  NetworkPolicyPeer,
  NodeSelectorTerm,
  PodAffinity,
  PodAffinityTerm,
  ResourceRequirements,
  Toleration,
  TopologySpreadConstraint,
} from './k8s-types.ts';
import type { SchemaFor } from './schema-types.ts';

const stringList = (description: string): SchemaFor<string[]> => ({
  type: 'array',
  description,
  items: { type: 'string' },
  'x-kubernetes-list-type': 'atomic',
});
const stringMap = (description: string): SchemaFor<Record<string, string>> => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
});

const quantity: SchemaFor<string | number> = {
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
};

export const conditionsSchema: SchemaFor<Condition[]> = {
  type: 'array',
  description: "Latest observations of the cluster's state, one per type (Ready, Progressing, Degraded).",
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
    properties: {
      type: { type: 'string', description: 'Type of condition: Ready, Progressing or Degraded.', maxLength: 316 },
      status: { type: 'string', description: 'True, False or Unknown.', enum: ['True', 'False', 'Unknown'] },
      reason: {
        type: 'string',
        description: 'One CamelCase word saying why the condition has its status.',
        maxLength: 1024,
      },
      message: {
        type: 'string',
        description: 'For people: what is happening, e.g. "migrating slots 1200/5461".',
        maxLength: 32768,
      },
      lastTransitionTime: { type: 'string', format: 'date-time', description: 'When the status last changed.' },
      observedGeneration: {
        type: 'integer',
        format: 'int64',
        minimum: 0,
        description: 'The .metadata.generation the condition was set for.',
      },
    },
  },
};

export const resourcesSchema = (what: string): SchemaFor<ResourceRequirements> => ({
  type: 'object',
  description: `Compute resources of ${what} (requests and limits, as in a Pod's container).`,
  properties: {
    limits: {
      type: 'object',
      description: 'Maximum resources allowed, e.g. {cpu: "1", memory: 1Gi}.',
      additionalProperties: quantity,
    },
    requests: {
      type: 'object',
      description: 'Resources the scheduler reserves, e.g. {cpu: 100m, memory: 256Mi}.',
      additionalProperties: quantity,
    },
  },
});

const labelSelector = (description: string): SchemaFor<LabelSelector> => ({
  type: 'object',
  description,
  'x-kubernetes-map-type': 'atomic',
  properties: {
    matchLabels: stringMap('Labels the selected objects must all have.'),
    matchExpressions: {
      type: 'array',
      description: 'Requirements on labels, ANDed.',
      'x-kubernetes-list-type': 'atomic',
      items: {
        type: 'object',
        required: ['key', 'operator'],
        properties: {
          key: { type: 'string', description: 'Label key.' },
          operator: { type: 'string', description: 'In, NotIn, Exists or DoesNotExist.' },
          values: stringList('Values for In and NotIn.'),
        },
      },
    },
  },
});

const nodeSelectorTerm: SchemaFor<NodeSelectorTerm> = (() => {
  const requirements = (description: string) => ({
    type: 'array' as const,
    description,
    'x-kubernetes-list-type': 'atomic' as const,
    items: {
      type: 'object' as const,
      required: ['key', 'operator'] as const,
      properties: {
        key: { type: 'string' as const, description: 'Label or field key.' },
        operator: {
          type: 'string' as const,
          description: 'In, NotIn, Exists, DoesNotExist, Gt or Lt.',
          enum: ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] as const,
        },
        values: stringList('Values of the requirement.'),
      },
    },
  });
  return {
    type: 'object',
    description: 'Node requirements, ANDed.',
    'x-kubernetes-map-type': 'atomic',
    properties: {
      matchExpressions: requirements('Requirements on node labels.'),
      matchFields: requirements('Requirements on node fields.'),
    },
  };
})();

const podAffinityTerm: SchemaFor<PodAffinityTerm> = {
  type: 'object',
  description:
    'Pods (selected by labels and namespaces) that this pod must or must not be co-located with, per topology domain.',
  required: ['topologyKey'],
  properties: {
    labelSelector: labelSelector('Pods the term applies to.'),
    namespaceSelector: labelSelector('Namespaces the term applies to.'),
    namespaces: stringList("Namespaces the term applies to; empty means this pod's namespace."),
    topologyKey: {
      type: 'string',
      description: 'Node label whose values define the topology domains, e.g. kubernetes.io/hostname.',
    },
    matchLabelKeys: stringList('Pod label keys whose values are added to labelSelector.'),
    mismatchLabelKeys: stringList('Pod label keys whose values are excluded through labelSelector.'),
  },
};

const podAffinity = (description: string): SchemaFor<PodAffinity> => ({
  type: 'object',
  description,
  properties: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      type: 'array',
      description: 'Terms that must hold at scheduling time.',
      'x-kubernetes-list-type': 'atomic',
      items: podAffinityTerm,
    },
    preferredDuringSchedulingIgnoredDuringExecution: {
      type: 'array',
      description: 'Weighted terms the scheduler prefers.',
      'x-kubernetes-list-type': 'atomic',
      items: {
        type: 'object',
        required: ['weight', 'podAffinityTerm'],
        properties: {
          weight: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, description: 'Weight, 1-100.' },
          podAffinityTerm,
        },
      },
    },
  },
});

export const affinitySchema: SchemaFor<Affinity> = {
  type: 'object',
  description:
    "Scheduling constraints of the Redis pods, as in a Pod's spec.affinity. nodeAffinity and podAffinity are used as given; the operator adds two preferred podAntiAffinity terms (spread this cluster's pods over nodes, then zones) to yours.",
  properties: {
    nodeAffinity: {
      type: 'object',
      description: 'Node affinity rules.',
      properties: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          type: 'object',
          description: 'Nodes the pods must run on.',
          'x-kubernetes-map-type': 'atomic',
          required: ['nodeSelectorTerms'],
          properties: {
            nodeSelectorTerms: {
              type: 'array',
              description: 'Terms, ORed.',
              'x-kubernetes-list-type': 'atomic',
              items: nodeSelectorTerm,
            },
          },
        },
        preferredDuringSchedulingIgnoredDuringExecution: {
          type: 'array',
          description: 'Weighted node preferences.',
          'x-kubernetes-list-type': 'atomic',
          items: {
            type: 'object',
            required: ['weight', 'preference'],
            properties: {
              weight: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, description: 'Weight, 1-100.' },
              preference: nodeSelectorTerm,
            },
          },
        },
      },
    },
    podAffinity: podAffinity('Pods these pods should run near.'),
    podAntiAffinity: podAffinity('Pods these pods should run away from.'),
  },
};

export const tolerationsSchema: SchemaFor<Toleration[]> = {
  type: 'array',
  description: "Taints the Redis pods tolerate, as in a Pod's spec.tolerations.",
  'x-kubernetes-list-type': 'atomic',
  items: {
    type: 'object',
    properties: {
      key: { type: 'string', description: 'Taint key; empty with operator Exists matches every taint.' },
      operator: { type: 'string', description: 'Exists or Equal (default).', enum: ['Exists', 'Equal'] },
      value: { type: 'string', description: 'Taint value for operator Equal.' },
      effect: {
        type: 'string',
        description: 'NoSchedule, PreferNoSchedule or NoExecute; empty matches all.',
        enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
      },
      tolerationSeconds: {
        type: 'integer',
        format: 'int64',
        description: 'For NoExecute: how long the pod stays bound after the taint appears.',
      },
    },
  },
};

export const topologySpreadConstraintsSchema: SchemaFor<TopologySpreadConstraint[]> = {
  type: 'array',
  description:
    "How the Redis pods spread across topology domains (zones, nodes), as in a Pod's spec.topologySpreadConstraints.",
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['topologyKey', 'whenUnsatisfiable'],
  items: {
    type: 'object',
    required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
    properties: {
      maxSkew: {
        type: 'integer',
        format: 'int32',
        minimum: 1,
        description: 'Largest allowed difference of matching pods between two domains.',
      },
      topologyKey: {
        type: 'string',
        description: 'Node label defining the domains, e.g. topology.kubernetes.io/zone.',
      },
      whenUnsatisfiable: {
        type: 'string',
        description: 'DoNotSchedule or ScheduleAnyway.',
        enum: ['DoNotSchedule', 'ScheduleAnyway'],
      },
      labelSelector: labelSelector("Pods counted in each domain; the operator's pod labels when absent."),
      minDomains: { type: 'integer', format: 'int32', minimum: 1, description: 'Minimum number of eligible domains.' },
      nodeAffinityPolicy: {
        type: 'string',
        description: "Honor or Ignore the pod's node affinity when counting.",
        enum: ['Honor', 'Ignore'],
      },
      nodeTaintsPolicy: {
        type: 'string',
        description: 'Honor or Ignore node taints when counting.',
        enum: ['Honor', 'Ignore'],
      },
      matchLabelKeys: stringList('Pod label keys whose values are added to labelSelector.'),
    },
  },
};

export { stringMap };

export const networkPolicyPeerSchema: SchemaFor<NetworkPolicyPeer> = {
  type: 'object',
  description:
    "Pods (podSelector, in this namespace unless namespaceSelector says which), namespaces, or addresses, as in a NetworkPolicy's from.",
  minProperties: 1,
  'x-kubernetes-validations': [
    {
      rule: '!has(self.ipBlock) || (!has(self.podSelector) && !has(self.namespaceSelector))',
      message: 'ipBlock cannot be combined with podSelector or namespaceSelector: give it a peer of its own',
    },
  ],
  properties: {
    podSelector: labelSelector('Pods admitted; {} is every pod (of the namespaces selected, or of this one).'),
    namespaceSelector: labelSelector('Namespaces whose pods are admitted; {} is every namespace.'),
    ipBlock: {
      type: 'object',
      description: 'Addresses admitted (clients outside the cluster).',
      required: ['cidr'],
      properties: {
        cidr: { type: 'string', description: 'A CIDR such as 10.0.0.0/8.', maxLength: 64 },
        except: stringList('CIDRs inside cidr that are not admitted.'),
      },
    },
  },
};

/** A reference to a Secret of the object's namespace by name (LocalObjectReference). */
export const secretRefSchema = (description: string): SchemaFor<{ name: string }> => ({
  type: 'object',
  description,
  required: ['name'],
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 253,
      pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
      description: 'Name of the Secret.',
    },
  },
});
