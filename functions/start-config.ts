// Configuration of `npm start`, read once from the environment, validated (every problem
// reported at once), frozen, and passed down. Nothing below reads process.env. Secrets read
// here (the queue Redis password) go into the config, never into a message.
import { readFileSync } from 'node:fs';
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
   * appendfsync always or everysec). It
   * carries the password of REDIS_PASSWORD or REDIS_PASSWORD_FILE: never log it.
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
  readonly ingest: {
    readonly maxBodyBytes: number;
    /** Events one request may carry (a batch); more get a 413. */
    readonly maxEvents: number;
    readonly retryAfterS: number;
    readonly auth: IngestAuth;
    /** Events are refused (503) while the queue Redis uses this share of its maxmemory. */
    readonly queueHighWater: number;
    readonly queueCheckMs: number;
  };
  readonly eventSource: {
    /** The projected ServiceAccount token sent to ingest as a bearer token; re-read when it
     * changes. Undefined (EVENT_SOURCE_TOKEN_FILE=none): no token is sent. */
    readonly tokenFile: string | undefined;
    /** POSTs kept in flight at once (events of one object go one at a time). */
    readonly concurrency: number;
  };
  readonly dashboard: {
    /** Required unless DASHBOARD_AUTH=none (then undefined and anyone may look). */
    readonly token: string | undefined;
    readonly auth: 'token' | 'none';
    readonly readOnly: boolean;
    /** How often the queue depth is sampled for the cluster view's chart. */
    readonly sampleEveryMs: number;
  };
  /** Namespace the event source watches; all namespaces when unset. */
  readonly watchNamespace: string | undefined;
  /** Namespace the operator runs in (downward API); each cluster's NetworkPolicy admits its reconcile worker from there. */
  readonly operatorNamespace: string;
}

/** How ingest authenticates senders (INGEST_AUTH): TokenReview by default; 'none' for a dev loop. */
export type IngestAuth =
  | { readonly mode: 'none' }
  | {
      readonly mode: 'tokenreview';
      /** The audience the senders' tokens must be issued for. */
      readonly audience: string;
      /** Usernames (system:serviceaccount:<ns>:<name>) allowed to send events. */
      readonly allowedSubjects: readonly string[];
      readonly cacheTtlMs: number;
      readonly cacheSize: number;
      /** Reviews of tokens not in the cache, a flood's cost to the API server: beyond, 429. */
      readonly reviewLimit: { readonly ratePerS: number; readonly burst: number };
    };

export const INGEST_AUDIENCE = 'knredis-ingest';
/** Token reviews of unknown tokens: the senders (3 by default) and their restarts at once, then
 * one a second, what a flood of forged tokens costs the API server (per ingest process). */
export const DEFAULT_REVIEW_LIMIT = Object.freeze({ ratePerS: 1, burst: 10 });
export const DEFAULT_TOKEN_FILE = '/var/run/secrets/knredis/ingest/token';

/** The senders of events in both runtimes: knredis' event source, and the OIDC ServiceAccounts
 * Knative Eventing creates for the two ApiServerSources of infra/knative/apiserversource.yaml
 * (named <source>-oidc-sources.knative.dev-apiserversource). */
export function defaultSenders(namespace: string): string[] {
  return [
    'knredis-event-source',
    ...['knredis', 'knredis-secrets'].map((s) => `${s}-oidc-sources.knative.dev-apiserversource`),
  ].map((name) => `system:serviceaccount:${namespace}:${name}`);
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

export function readConfig(env: Env, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): Config {
  const problems: string[] = [];
  const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!(values as readonly string[]).includes(raw))
      problems.push(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };
  const share = (name: string, fallback: number): number => {
    const value = num(name, fallback);
    if (!(value > 0 && value <= 1)) problems.push(`${name} must be in (0, 1], got "${env[name]}"`);
    return value;
  };
  /** A secret from NAME or NAME_FILE; the message names the variable, never the value. */
  const secret = (name: string): string | undefined => {
    const file = env[`${name}_FILE`];
    if (env[name] && file) problems.push(`set ${name} or ${name}_FILE, not both`);
    if (!file) return env[name] || undefined;
    try {
      return readFile(file).trim() || undefined;
    } catch (error) {
      problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      return undefined;
    }
  };
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
  const positive = (name: string, fallback: number): number => {
    const value = num(name, fallback);
    if (!(value > 0)) problems.push(`${name} must be a number > 0, got "${env[name]}"`);
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
  const queueRedis = readQueueRedis(env, url, secret('REDIS_PASSWORD'), problems);
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
      maxEvents: int('INGEST_MAX_EVENTS', 100, 1),
      retryAfterS: int('INGEST_RETRY_AFTER_S', 5, 1),
      auth:
        oneOf('INGEST_AUTH', ['tokenreview', 'none'], 'tokenreview') === 'none'
          ? { mode: 'none' }
          : {
              mode: 'tokenreview',
              audience: env.INGEST_AUDIENCE || INGEST_AUDIENCE,
              allowedSubjects:
                list(env.INGEST_ALLOWED_SUBJECTS) ?? defaultSenders(env.POD_NAMESPACE || 'knredis-system'),
              cacheTtlMs: int('INGEST_AUTH_CACHE_MS', 60_000, 0),
              cacheSize: int('INGEST_AUTH_CACHE_SIZE', 1_000, 1),
              reviewLimit: {
                ratePerS: positive('INGEST_AUTH_REVIEW_RATE', DEFAULT_REVIEW_LIMIT.ratePerS),
                burst: int('INGEST_AUTH_REVIEW_BURST', DEFAULT_REVIEW_LIMIT.burst, 1),
              },
            },
      queueHighWater: share('INGEST_QUEUE_HIGH_WATER', 0.8),
      queueCheckMs: int('INGEST_QUEUE_CHECK_MS', 1_000, 10),
    },
    eventSource: {
      tokenFile: env.EVENT_SOURCE_TOKEN_FILE === 'none' ? undefined : env.EVENT_SOURCE_TOKEN_FILE || DEFAULT_TOKEN_FILE,
      concurrency: int('EVENT_SOURCE_CONCURRENCY', 16, 1),
    },
    dashboard: {
      token: secret('DASHBOARD_TOKEN'),
      auth: oneOf('DASHBOARD_AUTH', ['token', 'none'], 'token'),
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
  password: string | undefined,
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
    ...(password ? { password } : {}),
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
  const single = withPassword(url('REDIS_URL', ['redis:', 'rediss:']), password, problems);
  return single === undefined ? undefined : { mode: 'single', url: single };
}

function list(raw: string | undefined): string[] | undefined {
  const items = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
}

/** REDIS_URL with the password in it, so every connection made from the URL authenticates. */
function withPassword(redisUrl: string | undefined, password: string | undefined, problems: string[]) {
  if (!redisUrl || !password) return redisUrl;
  const url = new URL(redisUrl);
  if (url.password) {
    problems.push('REDIS_URL holds a password already: drop it, or REDIS_PASSWORD');
    return redisUrl;
  }
  url.password = encodeURIComponent(password);
  return url.toString();
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
