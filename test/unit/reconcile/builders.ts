// Small builders for the reconciler's pure tables: a RedisCluster (`aRedisCluster().withMasters(3)`),
// observed pods and claims, and a cluster plan. Topologies come from ../cluster/builders.ts,
// whose pods are named `redis-<n>`, like the pods of a RedisCluster named `redis`.
import { withDefaults, type DefaultedSpec } from '../../../shared/core/api/defaults.ts';
import type { RedisCluster, RedisClusterSpec, RedisClusterStatus } from '../../../shared/core/api/v1beta1.ts';
import type { ClusterPlan, Phase, Problem } from '../../../shared/core/cluster/plan-types.ts';
import type { ObservedClaim, ObservedPod } from '../../../shared/core/reconcile/observed.ts';
import type { OwnerCluster } from '../../../shared/core/resources/meta.ts';
import { computeStatus, type StatusInput } from '../../../shared/core/reconcile/status.ts';
import { aTopology, pods, threeByOne } from '../cluster/builders.ts';

export const CLUSTER = 'redis';
export const NAMESPACE = 'shop';

class RedisClusterBuilder {
  private fields: RedisClusterSpec = {};
  private status: RedisClusterStatus | undefined;

  withMasters(masters: number): this {
    return this.with({ masters });
  }
  withReplicas(replicasPerMaster: number): this {
    return this.with({ replicasPerMaster });
  }
  withVersion(version: string): this {
    return this.with({ version });
  }
  withImage(image: string): this {
    return this.with({ image });
  }
  withConfig(config: Record<string, string>): this {
    return this.with({ config });
  }
  withStorage(storage: RedisClusterSpec['storage']): this {
    return this.with({ storage });
  }
  withPdb(podDisruptionBudget: RedisClusterSpec['podDisruptionBudget']): this {
    return this.with({ podDisruptionBudget });
  }
  withAuthSecret(name: string, key?: string): this {
    return this.with({ auth: { secretRef: { name, ...(key ? { key } : {}) } } });
  }
  paused(): this {
    return this.with({ paused: true });
  }
  withStatus(status: RedisClusterStatus): this {
    this.status = status;
    return this;
  }

  with(fields: RedisClusterSpec): this {
    this.fields = { ...this.fields, ...fields };
    return this;
  }

  /** The spec as the API server serves it (schema defaults filled in). */
  spec(): DefaultedSpec {
    return withDefaults(this.fields);
  }

  owner(): OwnerCluster {
    return { metadata: { name: CLUSTER, namespace: NAMESPACE, uid: 'uid-1' } };
  }

  build(): RedisCluster {
    return {
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name: CLUSTER, namespace: NAMESPACE, uid: 'uid-1', generation: 1 },
      spec: this.fields,
      ...(this.status ? { status: this.status } : {}),
    };
  }
}

export const aRedisCluster = () => new RedisClusterBuilder();

/** A Running, Ready pod `redis-<ordinal>` on node-<ordinal % 3>, at revision `rev-1`. */
export function aPod(ordinal: number, fields: Partial<ObservedPod> = {}): ObservedPod {
  return {
    name: `${CLUSTER}-${ordinal}`,
    ordinal,
    ip: `127.9.0.${ordinal + 1}`,
    nodeName: `node-${ordinal % 3}`,
    zone: `zone-${ordinal % 3}`,
    phase: 'Running',
    ready: true,
    terminating: false,
    revision: 'rev-1',
    restartCount: 0,
    ...fields,
  };
}

/** Pods 0..n-1, each changed by `fields` (a function of the ordinal, or the same for all). */
export function somePods(
  n: number,
  fields: Partial<ObservedPod> | ((ordinal: number) => Partial<ObservedPod>) = {},
): ObservedPod[] {
  return Array.from({ length: n }, (_, i) => aPod(i, typeof fields === 'function' ? fields(i) : fields));
}

export function aClaim(ordinal: number, nodeId?: string): ObservedClaim {
  return { name: `data-${CLUSTER}-${ordinal}`, pod: `${CLUSTER}-${ordinal}`, ordinal, ...(nodeId ? { nodeId } : {}) };
}

/** A plan: converged and idle by default; `phase` other than ready makes it busy. */
export function aPlan(
  fields: {
    phase?: Phase;
    message?: string;
    slotsToMove?: number;
    problems?: Problem[];
    converged?: boolean;
    removable?: string[];
  } = {},
): ClusterPlan {
  const phase = fields.phase ?? 'ready';
  return {
    steps: [],
    problems: fields.problems ?? [],
    removable: fields.removable ?? [],
    converged: fields.converged ?? (phase === 'ready' && (fields.problems ?? []).length === 0),
    requeueAfterMs: phase === 'ready' ? 0 : 1_000,
    progress: {
      phase,
      message: fields.message ?? (phase === 'ready' ? 'cluster is ready' : `${phase}`),
      ...(fields.slotsToMove !== undefined ? { slotsToMove: fields.slotsToMove } : {}),
    },
  };
}

export const T0 = '2026-01-01T00:00:00.000Z';
export const T1 = '2026-01-01T00:01:00.000Z';
/** The status of a cluster that has been Ready before. */
export const wasReady: RedisClusterStatus = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: '', lastTransitionTime: T0 }],
};

/** The status computeStatus gives a healthy 3x1 cluster that was Ready before, at T1, with `fields` over it. */
export function aStatus(fields: Partial<StatusInput> = {}): RedisClusterStatus {
  return computeStatus({
    name: CLUSTER,
    generation: 3,
    previous: wasReady,
    expectedPods: 6,
    pods: somePods(6),
    topology: aTopology(pods(6), threeByOne),
    plan: aPlan(),
    paused: false,
    now: T1,
    ...fields,
  });
}
