// Schemas of the pod-level pass-through fields: securityContext and the Redis container's env.
import type { EnvVar, KeyRef, PodSecurityContext } from './k8s-types.ts';
import type { SchemaFor } from './schema-types.ts';

const id = (what: string): SchemaFor<number> => ({ type: 'integer', format: 'int64', minimum: 0, description: what });

export const podSecurityContextSchema: SchemaFor<PodSecurityContext> = {
  type: 'object',
  description:
    "The Redis pods' securityContext, over the operator's defaults (runAsNonRoot, uid/gid/fsGroup 999, seccomp RuntimeDefault), which pass the restricted Pod Security Standard.",
  properties: {
    runAsUser: id('User id of the processes; 999 (the redis user of the official image) by default.'),
    runAsGroup: id('Group id of the processes; 999 by default.'),
    runAsNonRoot: { type: 'boolean', description: 'Refuse to start as root; true by default.' },
    fsGroup: id('Group owning the volumes; 999 by default.'),
    fsGroupChangePolicy: {
      type: 'string',
      enum: ['Always', 'OnRootMismatch'],
      description: 'When volume ownership is changed to fsGroup: OnRootMismatch (default) or Always.',
    },
    supplementalGroups: {
      type: 'array',
      description: 'More groups of the processes.',
      'x-kubernetes-list-type': 'atomic',
      items: { type: 'integer', format: 'int64' },
    },
    seccompProfile: {
      type: 'object',
      description: 'Seccomp profile; RuntimeDefault by default.',
      required: ['type'],
      properties: {
        type: { type: 'string', enum: ['RuntimeDefault', 'Localhost', 'Unconfined'], description: 'Kind of profile.' },
        localhostProfile: { type: 'string', description: 'Profile file on the node, for type Localhost.' },
      },
    },
  },
};

const keyRef = (what: string): SchemaFor<KeyRef> => ({
  type: 'object',
  description: `A key of a ${what} in the cluster's namespace.`,
  required: ['name', 'key'],
  properties: {
    name: { type: 'string', description: `Name of the ${what}.` },
    key: { type: 'string', description: 'The key.' },
    optional: { type: 'boolean', description: 'Start without it when missing.' },
  },
});

export const envSchema: SchemaFor<EnvVar[]> = {
  type: 'array',
  description:
    'Extra environment variables of the Redis container, as in a Pod (names the operator sets, POD_IP and REDISCLI_AUTH, are refused).',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  items: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', maxLength: 253, description: 'Name of the variable.' },
      value: { type: 'string', description: 'Its value ($(VAR) references expand).' },
      valueFrom: {
        type: 'object',
        description: 'Where the value comes from.',
        properties: {
          secretKeyRef: keyRef('Secret'),
          configMapKeyRef: keyRef('ConfigMap'),
          fieldRef: {
            type: 'object',
            description: 'A field of the pod, e.g. metadata.name.',
            required: ['fieldPath'],
            properties: {
              fieldPath: { type: 'string', description: 'Path of the field.' },
              apiVersion: { type: 'string', description: 'Version of the path; v1 by default.' },
            },
          },
        },
      },
    },
    'x-kubernetes-validations': [
      {
        rule: "self.name != 'POD_IP' && self.name != 'REDISCLI_AUTH'",
        message: 'POD_IP and REDISCLI_AUTH are set by the operator',
      },
    ],
  },
};
