// The StatefulSet of a cluster. Layout: ONE StatefulSet for all nodes, masters * (1 + replicas)
// pods. Roles are not pinned to pods: Redis fails over by itself, so a per-role StatefulSet
// would soon describe the wrong pods; the engine chooses masters and places each replica on
// another Kubernetes node (and zone) than its master. Scale-in removes the highest ordinals
// once the engine has drained and forgotten them. Updates are OnDelete: the operator restarts
// pods one by one, replicas first, a master only after a planned failover.
import type { V1Container, V1EnvVar, V1PersistentVolumeClaim, V1StatefulSet } from '@kubernetes/client-node';
import { LABEL_COMPONENT } from '../api/group.ts';
import type { DefaultedSpec } from '../api/defaults.ts';
import { defaultImage } from '../api/versions.ts';
import {
  ANNOTATION_HASH,
  ANNOTATION_RESTART_HASH,
  childLabels,
  hashOf,
  ownerReference,
  selectorLabels,
  type OwnerCluster,
} from './meta.ts';
import { podAffinityOf } from './affinity.ts';
import { MONITOR_HASH_ENV, redisCliTlsArgs, redisStartScript } from './redis-command.ts';
import { MONITOR_HASH_KEY, MONITOR_USER } from './monitor-user.ts';
import {
  AUTH_FILE,
  AUTH_PATH,
  AUTH_VOLUME,
  BUS_PORT,
  CLIENT_PORT,
  CONFIG_PATH,
  CONFIG_VOLUME,
  DATA_PATH,
  DATA_VOLUME,
  PASSWORD_KEY,
  PLAINTEXT_PORT,
  REDIS_CONTAINER,
  REDIS_UID,
  RUN_PATH,
  RUN_VOLUME,
  TLS_CA_FILE,
  TLS_PATH,
  TLS_VOLUME,
  childNames,
} from './names.ts';

export interface StatefulSetInput {
  readonly cluster: OwnerCluster;
  readonly spec: DefaultedSpec;
  /** Secret and key of the password. */
  readonly auth: { readonly name: string; readonly key: string };
  /**
   * The monitoring user's Secret (monitor-user.ts): the pods create the user from its hash,
   * and the exporter logs in as it. Absent, the exporter logs in with the password in force.
   */
  readonly monitor?: { readonly secretName: string };
  /** Hash of the restart-only redis.conf settings: a change rolls the pods. */
  readonly restartConfigHash: string;
  /** Pods wanted now (during scale-in, more than the spec until the engine lets them go). */
  readonly replicas: number;
  /**
   * The claim templates of the StatefulSet that exists: they are immutable, so they are kept
   * as they are (a larger spec.storage.size replaces the StatefulSet: volume-growth.ts).
   */
  readonly existingClaimTemplates?: readonly V1PersistentVolumeClaim[];
}

export function podCount(spec: DefaultedSpec): number {
  return spec.masters * (1 + spec.replicasPerMaster);
}

export function imageOf(spec: DefaultedSpec): string {
  return spec.image ?? defaultImage(spec.version);
}

export function desiredStatefulSet(input: StatefulSetInput): V1StatefulSet {
  const { cluster, spec } = input;
  const name = cluster.metadata.name;
  const names = childNames(name);
  const image = imageOf(spec);
  const labels = childLabels(name, 'redis');
  // Pod settings apply only to new pods (updates are OnDelete): a change rolls the pods. Absent
  // ones leave the hash of clusters that never set them as it was.
  const podSettings = {
    priorityClassName: spec.priorityClassName,
    securityContext: spec.securityContext,
    env: spec.env,
  };
  const restartHash = hashOf({
    image,
    config: input.restartConfigHash,
    auth: input.auth,
    ...(Object.values(podSettings).some((v) => v !== undefined) ? { pod: podSettings } : {}),
    // The Secret's name and the listeners; a renewed certificate is reloaded live (tls-reload.ts).
    ...(spec.tls ? { tls: spec.tls } : {}),
  });
  const secretEnv = (envName: string, from: { name: string; key: string } = input.auth) => ({
    name: envName,
    valueFrom: { secretKeyRef: { name: from.name, key: from.key } },
  });
  const monitorSecret = input.monitor?.secretName;
  const sts: V1StatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: names.statefulSet,
      namespace: cluster.metadata.namespace,
      labels,
      ownerReferences: [ownerReference(cluster)],
    },
    spec: {
      serviceName: names.headlessService,
      replicas: input.replicas,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'OnDelete' },
      selector: { matchLabels: selectorLabels(name) },
      persistentVolumeClaimRetentionPolicy: {
        whenDeleted: spec.storage.reclaim === 'Delete' ? 'Delete' : 'Retain',
        // A removed node was drained and forgotten: its nodes.conf must not come back.
        whenScaled: 'Delete',
      },
      template: {
        metadata: {
          labels: { ...labels, [LABEL_COMPONENT]: 'redis' },
          annotations: { [ANNOTATION_RESTART_HASH]: restartHash },
        },
        spec: {
          ...(spec.nodeSelector ? { nodeSelector: spec.nodeSelector } : {}),
          ...(spec.tolerations ? { tolerations: spec.tolerations as never } : {}),
          ...(spec.topologySpreadConstraints
            ? { topologySpreadConstraints: spec.topologySpreadConstraints as never }
            : {}),
          affinity: podAffinityOf(name, spec.affinity) as never,
          ...(spec.priorityClassName ? { priorityClassName: spec.priorityClassName } : {}),
          securityContext: { ...RESTRICTED_POD, ...spec.securityContext },
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: REDIS_CONTAINER,
              image,
              ...(spec.imagePullPolicy ? { imagePullPolicy: spec.imagePullPolicy } : {}),
              // No password on a command line: the start script reads it from the mounted Secret.
              command: ['sh', '-c', redisStartScript(spec.tls)],
              env: [
                { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                // redis-cli reads its password from here, so probes keep it off the command line.
                secretEnv('REDISCLI_AUTH'),
                ...(monitorSecret ? [secretEnv(MONITOR_HASH_ENV, { name: monitorSecret, key: MONITOR_HASH_KEY })] : []),
                ...((spec.env ?? []) as V1EnvVar[]),
              ],
              securityContext: RESTRICTED_CONTAINER,
              ports: [
                { name: 'redis', containerPort: CLIENT_PORT },
                { name: 'bus', containerPort: BUS_PORT },
                ...(spec.tls?.plaintext ? [{ name: 'redis-plain', containerPort: PLAINTEXT_PORT }] : []),
              ],
              ...(spec.resources ? { resources: spec.resources as never } : {}),
              readinessProbe: {
                // NOAUTH is an answer too: after a password rotation the pod's environment
                // still holds the password it started with, which Redis no longer accepts.
                // An exec costs a node three processes (sh, redis-cli, grep: some 35 ms of CPU
                // on a small VM, more through a container runtime), so it runs every 5 s, not
                // every 2 s: 30 Redis pods on a node spend about 0.2 of a core on it, not 0.5.
                exec: {
                  command: [
                    'sh',
                    '-c',
                    `redis-cli -h "$POD_IP" -p ${CLIENT_PORT}${redisCliTlsArgs(spec.tls)} ping | grep -q -e PONG -e NOAUTH`,
                  ],
                },
                periodSeconds: 5,
                timeoutSeconds: 3,
                failureThreshold: 2,
              },
              livenessProbe: {
                tcpSocket: { port: CLIENT_PORT as never },
                initialDelaySeconds: 5,
                periodSeconds: 5,
                failureThreshold: 3,
              },
              volumeMounts: [
                { name: DATA_VOLUME, mountPath: DATA_PATH },
                { name: CONFIG_VOLUME, mountPath: CONFIG_PATH, readOnly: true },
                { name: AUTH_VOLUME, mountPath: AUTH_PATH, readOnly: true },
                { name: RUN_VOLUME, mountPath: RUN_PATH },
                ...tlsMounts(spec),
              ],
            },
            ...exporterContainers(spec, exporterAuth(secretEnv, monitorSecret)),
          ],
          volumes: [
            { name: CONFIG_VOLUME, configMap: { name: names.configMap } },
            {
              name: AUTH_VOLUME,
              secret: {
                secretName: input.auth.name,
                items: [{ key: input.auth.key, path: AUTH_FILE }],
                defaultMode: 0o440,
              },
            },
            { name: RUN_VOLUME, emptyDir: { medium: 'Memory', sizeLimit: '1Mi' as never } },
            ...(spec.tls
              ? [
                  {
                    name: TLS_VOLUME,
                    // Not items: a renewal rewrites the files in place, and the operator reloads them.
                    secret: { secretName: spec.tls.secretRef.name, defaultMode: 0o440 },
                  },
                ]
              : []),
          ],
        },
      },
      volumeClaimTemplates: input.existingClaimTemplates
        ? [...input.existingClaimTemplates]
        : [
            {
              metadata: { name: DATA_VOLUME, labels: childLabels(name, 'data') },
              spec: {
                accessModes: ['ReadWriteOnce'],
                ...(spec.storage.className ? { storageClassName: spec.storage.className } : {}),
                resources: { requests: { storage: spec.storage.size ?? '1Gi' } },
              },
            },
          ],
    },
  };
  return withHash(sts);
}

/** Sets the desired-hash annotation from the object's content (hash computed without it). */
export function withHash<T extends { metadata?: { name?: string; annotations?: Record<string, string> } }>(
  object: T,
): T {
  const hash = hashOf(object);
  return {
    ...object,
    metadata: { ...object.metadata, annotations: { ...object.metadata?.annotations, [ANNOTATION_HASH]: hash } },
  };
}

/** What the `restricted` Pod Security Standard asks of a pod; spec.securityContext goes over it. */
const RESTRICTED_POD = {
  runAsNonRoot: true,
  runAsUser: REDIS_UID,
  runAsGroup: REDIS_UID,
  fsGroup: REDIS_UID,
  fsGroupChangePolicy: 'OnRootMismatch',
  seccompProfile: { type: 'RuntimeDefault' },
} as const;
const RESTRICTED_CONTAINER = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

const EXPORTER_IMAGE = 'oliver006/redis_exporter:v1.62.0';
export const EXPORTER_PORT = 9121;

function tlsMounts(spec: DefaultedSpec) {
  return spec.tls ? [{ name: TLS_VOLUME, mountPath: TLS_PATH, readOnly: true }] : [];
}

/**
 * How the exporter logs in: as the monitoring user, whose password no rotation changes (it
 * reads its password once at start), or, without one, with the password in force.
 */
function exporterAuth(
  secretEnv: (name: string, from?: { name: string; key: string }) => V1EnvVar,
  monitorSecret: string | undefined,
): V1EnvVar[] {
  if (!monitorSecret) return [secretEnv('REDIS_PASSWORD')];
  return [
    { name: 'REDIS_USER', value: MONITOR_USER },
    secretEnv('REDIS_PASSWORD', { name: monitorSecret, key: PASSWORD_KEY }),
    // CONFIG GET prints requirepass and masterauth: the monitoring user may not run it.
    { name: 'REDIS_EXPORTER_CONFIG_COMMAND', value: '-' },
  ];
}

/**
 * The Prometheus exporter sidecar (spec.exporter.enabled): port `metrics`, for a ServiceMonitor.
 * With TLS it connects with rediss:// to localhost and verifies the chain against ca.crt (the
 * certificate must name localhost, as the sample Certificate does).
 */
function exporterContainers(spec: DefaultedSpec, auth: V1EnvVar[]): V1Container[] {
  if (!spec.exporter?.enabled) return [];
  return [
    {
      name: 'exporter',
      image: spec.exporter.image ?? EXPORTER_IMAGE,
      env: [
        { name: 'REDIS_ADDR', value: `${spec.tls ? 'rediss' : 'redis'}://localhost:${CLIENT_PORT}` },
        ...auth,
        { name: 'REDIS_EXPORTER_IS_CLUSTER', value: 'true' },
        ...(spec.tls ? [{ name: 'REDIS_EXPORTER_TLS_CA_CERT_FILE', value: TLS_CA_FILE }] : []),
      ],
      ...(spec.tls ? { volumeMounts: tlsMounts(spec) } : {}),
      ports: [{ name: 'metrics', containerPort: EXPORTER_PORT }],
      securityContext: RESTRICTED_CONTAINER,
      ...(spec.exporter.resources ? { resources: spec.exporter.resources as never } : {}),
      readinessProbe: { tcpSocket: { port: EXPORTER_PORT as never }, periodSeconds: 10 },
    },
  ];
}
