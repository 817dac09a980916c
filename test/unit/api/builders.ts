// Builders and a seeded generator of RedisCluster objects for the API's unit tests.
import type { RedisCluster, RedisClusterSpec, RedisClusterStatus } from '../../../shared/core/api/v1beta1.ts';
import type { RedisClusterV1alpha1 } from '../../../shared/core/api/v1alpha1.ts';
import { SUPPORTED_VERSIONS } from '../../../shared/core/api/versions.ts';

export function aBeta(
  spec: RedisClusterSpec = {},
  status?: RedisClusterStatus,
  annotations?: Record<string, string>,
): RedisCluster {
  return {
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisCluster',
    metadata: { name: 'c', namespace: 'ns', uid: 'u-1', generation: 2, ...(annotations ? { annotations } : {}) },
    spec,
    ...(status ? { status } : {}),
  };
}

export function anAlpha(
  spec: RedisClusterV1alpha1['spec'],
  status?: RedisClusterV1alpha1['status'],
  annotations?: Record<string, string>,
): RedisClusterV1alpha1 {
  return {
    apiVersion: 'cache.redis.io/v1alpha1',
    kind: 'RedisCluster',
    metadata: { name: 'c', namespace: 'ns', uid: 'u-1', generation: 2, ...(annotations ? { annotations } : {}) },
    spec,
    ...(status ? { status } : {}),
  };
}

/** mulberry32: a small seeded PRNG, so a failing case can be reproduced from its seed. */
export function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const maybe = <T>(f: () => T): T | undefined => (next() < 0.5 ? f() : undefined);
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  return { next, int, maybe, pick };
}

type R = ReturnType<typeof random>;

const resources = (r: R) => ({
  requests: { cpu: `${r.int(1, 9) * 100}m`, memory: `${r.int(1, 8) * 64}Mi` },
  ...(r.next() < 0.5 ? { limits: { memory: '1Gi' } } : {}),
});
const config = (r: R) =>
  Object.fromEntries(
    Array.from({ length: r.int(0, 3) }, (_, i) => [
      ['maxmemory-policy', 'maxmemory', 'appendonly', 'timeout'][i]!,
      String(r.int(0, 99)),
    ]),
  );
const conditions = (r: R) =>
  Array.from({ length: r.int(0, 3) }, (_, i) => ({
    type: ['Ready', 'Progressing', 'Degraded'][i]!,
    status: r.pick(['True', 'False', 'Unknown'] as const),
    reason: 'Because',
    message: `m${r.int(0, 9)}`,
    lastTransitionTime: '2026-01-01T00:00:00Z',
  }));

/** A v1alpha1 object as a user or the API server could hold it (no annotation). */
export function randomAlpha(r: R): RedisClusterV1alpha1 {
  return anAlpha(
    strip({
      replicas: r.int(3, 40),
      resources: r.maybe(() => resources(r)),
      config: r.maybe(() => config(r)),
      storageClass: r.maybe(() => r.pick(['local', 'fast', ''])),
    }),
    r.maybe(() =>
      strip({
        conditions: r.maybe(() => conditions(r)),
        masterPod: r.maybe(() => `c-${r.int(0, 5)}-0`),
        readyReplicas: r.maybe(() => r.int(0, 40)),
      }),
    ),
    r.maybe(() => ({ team: 'cache' })),
  );
}

/** A v1beta1 object with any mix of the fields v1alpha1 cannot hold. */
export function randomBeta(r: R): RedisCluster {
  const spec: RedisClusterSpec = strip({
    masters: r.maybe(() => r.int(3, 12)),
    replicasPerMaster: r.maybe(() => r.int(0, 3)),
    version: r.maybe(() => r.pick(SUPPORTED_VERSIONS)),
    image: r.maybe(() => `redis:${r.pick(SUPPORTED_VERSIONS)}-alpine`),
    imagePullPolicy: r.maybe(() => r.pick(['Always', 'IfNotPresent'] as const)),
    resources: r.maybe(() => resources(r)),
    storage: r.maybe(() =>
      strip({
        className: r.maybe(() => r.pick(['local', 'fast'])),
        size: r.maybe(() => `${r.int(1, 20)}Gi`),
        reclaim: r.maybe(() => r.pick(['Retain', 'Delete'] as const)),
      }),
    ),
    config: r.maybe(() => config(r)),
    auth: r.maybe(() => ({ secretRef: strip({ name: 'pw', key: r.maybe(() => 'token') }) })),
    exporter: r.maybe(() =>
      strip({ enabled: r.next() < 0.5, image: r.maybe(() => 'oliver006/redis_exporter:v1.62.0') }),
    ),
    affinity: r.maybe(() => ({
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } },
        ],
      },
    })),
    tolerations: r.maybe(() => [
      { key: 'dedicated', operator: 'Equal' as const, value: 'redis', effect: 'NoSchedule' as const },
    ]),
    nodeSelector: r.maybe(() => ({ disk: 'ssd' })),
    topologySpreadConstraints: r.maybe(() => [
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' as const },
    ]),
    podDisruptionBudget: r.maybe(() => strip({ enabled: r.next() < 0.5, maxUnavailable: r.maybe(() => r.int(0, 2)) })),
    paused: r.maybe(() => r.next() < 0.5),
  });
  const status: RedisClusterStatus | undefined = r.maybe(() =>
    strip({
      conditions: r.maybe(() => conditions(r)),
      observedGeneration: r.maybe(() => r.int(1, 9)),
      phase: r.maybe(() => r.pick(['Running', 'Scaling'] as const)),
      shards: r.maybe(() => [
        {
          index: 0,
          name: 'c-0',
          master: { pod: 'c-0-0', nodeId: 'abc', ip: '127.0.0.5', ready: true },
          replicas: [{ pod: 'c-0-1' }],
          slots: [{ start: 0, end: 5460 }],
        },
      ]),
      slotsCovered: r.maybe(() => r.int(0, 16384)),
      readyMasters: r.maybe(() => r.int(0, 12)),
      readyReplicas: r.maybe(() => r.int(0, 12)),
      readyNodes: r.maybe(() => r.int(0, 24)),
      selector: r.maybe(() => 'app.kubernetes.io/instance=c'),
      operation: r.maybe(() => ({
        type: 'ScaleOut' as const,
        progress: 'migrating slots 1200/5461',
        startedAt: '2026-01-01T00:00:00Z',
      })),
      masterPod: r.maybe(() => 'c-0-0'),
    }),
  );
  return aBeta(
    spec,
    status,
    r.maybe(() => ({ team: 'cache' })),
  );
}

export function strip<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
