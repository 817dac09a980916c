// Configuration of `npm start`, read once from the environment, validated (every problem
// reported at once), frozen, and passed down. Nothing below reads process.env.
import { DEFAULT_OPERATOR_NAMESPACE } from '../shared/core/resources/network-policy.ts';
import { validateBackoff, type BackoffPolicy } from '../shared/core/queue/backoff.ts';

export interface Config {
  readonly port: number;
  /** Interface to listen on; 0.0.0.0 inside a container. */
  readonly host: string;
  readonly logLevel: string;
  /** The queue's Redis. It must persist (appendonly yes, appendfsync always or everysec). */
  readonly redisUrl: string | undefined;
  /** Path of a kubeconfig; in-cluster config or ~/.kube/config when unset. */
  readonly kubeconfig: string | undefined;
  /** Where the built-in event source posts its CloudEvents. */
  readonly sink: string | undefined;
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
  const config: Config = {
    port: int('PORT', 8080, 0),
    host: env.HOST || '127.0.0.1',
    logLevel: env.LOG_LEVEL || 'info',
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    kubeconfig: env.KUBECONFIG || undefined,
    sink: url('K_SINK', ['http:', 'https:']),
    queue: { prefix: env.QUEUE_PREFIX || 'knredis', name: env.QUEUE_NAME || 'reconcile' },
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

/** What a function needs that may be unset in general: a clear error naming the variable. */
export function required<T>(value: T | undefined, variable: string, fn: string): T {
  if (value === undefined) throw new ConfigError(`${fn} needs ${variable}`);
  return value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
