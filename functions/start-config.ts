// Configuration of `npm start`, read once from the environment, validated (every problem
// reported at once), frozen, and passed down. Nothing below reads process.env.
import { DEFAULT_OPERATOR_NAMESPACE } from '../shared/core/resources/network-policy.ts';
import { validateBackoff, type BackoffPolicy } from '../shared/core/queue/backoff.ts';
import { clusterPrefix } from '../shared/core/queue/hash-tag.ts';
import { parseHostPort, type HostPort, type QueueRedis } from '../shared/core/queue/queue-redis.ts';

/** The variables that say where the queue's Redis is, for "needs ..." errors. */
export const QUEUE_REDIS_VARIABLES = 'REDIS_URL (or REDIS_CLUSTER_NODES, or REDIS_SENTINELS)';

export interface Config {
  readonly port: number;
  /** Interface to listen on; 0.0.0.0 inside a container. */
  readonly host: string;
  readonly logLevel: string;
  /**
   * The queue's Redis: REDIS_URL (one server), REDIS_CLUSTER_NODES (a Redis Cluster) or
   * REDIS_SENTINELS + REDIS_SENTINEL_NAME (Sentinel). It must persist (appendonly yes,
   * appendfsync always or everysec).
   */
  readonly queueRedis: QueueRedis | undefined;
  /** Path of a kubeconfig; in-cluster config or ~/.kube/config when unset. */
  readonly kubeconfig: string | undefined;
  /** Where the built-in event source posts its CloudEvents. */
  readonly sink: string | undefined;
  /** On a Redis Cluster the prefix carries a hash tag: "knredis" becomes "{knredis}". */
  readonly queue: { readonly prefix: string; readonly name: string };
  readonly worker: {
    readonly concurrency: number;
    readonly timeoutMs: number;
    readonly lockDurationMs: number;
    readonly stalledIntervalMs: number;
    readonly maxStalledCount: number;
    readonly backoff: BackoffPolicy;
  };
  readonly resync: { readonly everyMs: number; readonly jitterMs: number };
  readonly ingest: { readonly maxBodyBytes: number; readonly retryAfterS: number };
  readonly dashboard: {
    readonly token: string | undefined;
    readonly readOnly: boolean;
    /** How often the queue depth is sampled for the cluster view's chart. */
    readonly sampleEveryMs: number;
  };
  /** POSTs the event source keeps in flight at once (events of one object go one at a time). */
  readonly eventSource: { readonly concurrency: number };
  /** Namespace the event source watches; all namespaces when unset. */
  readonly watchNamespace: string | undefined;
  /** Namespace the operator runs in (downward API); each cluster's NetworkPolicy admits its reconcile worker from there. */
  readonly operatorNamespace: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

export function readConfig(env: Env): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min = 0): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) problems.push(`${name} must be an integer >= ${min}, got "${raw}"`);
    return value;
  };
  const num = (name: string, fallback: number): number => {
    const raw = env[name];
    const value = raw === undefined || raw === '' ? fallback : Number(raw);
    if (!Number.isFinite(value)) problems.push(`${name} must be a number, got "${raw}"`);
    return value;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = env[name];
    if (!raw) return undefined;
    try {
      if (!protocols.includes(new URL(raw).protocol)) problems.push(`${name} must be a ${protocols.join(' or ')} URL`);
    } catch {
      problems.push(`${name} is not a URL`);
    }
    return raw;
  };
  const queueRedis = readQueueRedis(env, url, problems);
  const queueName = env.QUEUE_NAME || 'reconcile';
  const config: Config = {
    port: int('PORT', 8080, 0),
    host: env.HOST || '127.0.0.1',
    logLevel: env.LOG_LEVEL || 'info',
    queueRedis,
    kubeconfig: env.KUBECONFIG || undefined,
    sink: url('K_SINK', ['http:', 'https:']),
    queue: { prefix: queuePrefix(env.QUEUE_PREFIX || 'knredis', queueName, queueRedis, problems), name: queueName },
    worker: {
      concurrency: int('WORKER_CONCURRENCY', 8, 1),
      timeoutMs: int('RECONCILE_TIMEOUT_MS', 120_000, 1),
      lockDurationMs: int('QUEUE_LOCK_DURATION_MS', 10_000, 1_000),
      stalledIntervalMs: int('QUEUE_STALLED_INTERVAL_MS', 5_000, 100),
      maxStalledCount: int('QUEUE_MAX_STALLED_COUNT', 5, 1),
      backoff: {
        baseMs: int('BACKOFF_BASE_MS', 1_000, 1),
        maxMs: int('BACKOFF_MAX_MS', 300_000, 1),
        jitter: num('BACKOFF_JITTER', 0.2),
      },
    },
    resync: { everyMs: int('RESYNC_INTERVAL_MS', 300_000, 1_000), jitterMs: int('RESYNC_JITTER_MS', 30_000, 0) },
    ingest: {
      maxBodyBytes: int('INGEST_MAX_BODY_BYTES', 2 * 1024 * 1024, 1_024),
      retryAfterS: int('INGEST_RETRY_AFTER_S', 5, 1),
    },
    dashboard: {
      token: env.DASHBOARD_TOKEN || undefined,
      readOnly: env.DASHBOARD_READ_ONLY !== 'false',
      sampleEveryMs: int('DASHBOARD_SAMPLE_MS', 30_000, 1_000),
    },
    eventSource: { concurrency: int('EVENT_SOURCE_CONCURRENCY', 16, 1) },
    watchNamespace: env.WATCH_NAMESPACE || undefined,
    operatorNamespace: env.POD_NAMESPACE || DEFAULT_OPERATOR_NAMESPACE,
  };
  try {
    validateBackoff(config.worker.backoff);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return deepFreeze(config);
}

/** On a Redis Cluster the queue must sit in one hash slot: its prefix gets a hash tag. */
function queuePrefix(prefix: string, queue: string, redis: QueueRedis | undefined, problems: string[]): string {
  if (redis?.mode !== 'cluster') return prefix;
  try {
    return clusterPrefix(prefix, queue);
  } catch (error) {
    problems.push((error as Error).message);
    return prefix;
  }
}

/** One of REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS (with REDIS_SENTINEL_NAME), or none. */
function readQueueRedis(
  env: Env,
  url: (name: string, protocols: string[]) => string | undefined,
  problems: string[],
): QueueRedis | undefined {
  const given = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'].filter((name) => env[name]);
  if (given.length > 1)
    problems.push(`set only one of ${given.join(', ')}: they are different ways to reach the queue`);
  if (env.REDIS_SENTINEL_NAME && !env.REDIS_SENTINELS) problems.push('REDIS_SENTINEL_NAME needs REDIS_SENTINELS');
  const nodes = (name: string): HostPort[] => {
    const entries = (env[name] ?? '').split(',').filter((e) => e.trim() !== '');
    const parsed = entries.map(parseHostPort);
    const bad = entries.filter((_, i) => parsed[i] === undefined);
    if (bad.length > 0 || entries.length === 0)
      problems.push(`${name} must be a comma-separated list of host:port, got "${env[name]}"`);
    return parsed.filter((p) => p !== undefined);
  };
  // Credentials of the data nodes; the URL form carries its own.
  const credentials = {
    ...(env.REDIS_USERNAME ? { username: env.REDIS_USERNAME } : {}),
    ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
  };
  if (env.REDIS_CLUSTER_NODES) return { mode: 'cluster', nodes: nodes('REDIS_CLUSTER_NODES'), ...credentials };
  if (env.REDIS_SENTINELS) {
    if (!env.REDIS_SENTINEL_NAME)
      problems.push('REDIS_SENTINELS needs REDIS_SENTINEL_NAME, the name of the master the sentinels monitor');
    return {
      mode: 'sentinel',
      sentinels: nodes('REDIS_SENTINELS'),
      name: env.REDIS_SENTINEL_NAME ?? '',
      ...credentials,
      ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
    };
  }
  const single = url('REDIS_URL', ['redis:', 'rediss:']);
  return single === undefined ? undefined : { mode: 'single', url: single };
}

/** What a function needs that may be unset in general: a clear error naming the variable. */
export function required<T>(value: T | undefined, variable: string, fn: string): T {
  if (value === undefined) throw new ConfigError(`${fn} needs ${variable}`);
  return value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
