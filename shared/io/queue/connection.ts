// ioredis connections for the queue, to one Redis (a URL), a Redis Cluster or a Redis behind
// Sentinel (shared/core/queue/queue-redis.ts). Producers fail fast (no offline queue, short
// timeouts) so ingest can answer 503 at once while Redis is down; workers wait and retry
// forever, as BullMQ's blocking commands require. On a cluster the queue's prefix must carry a
// hash tag (shared/core/queue/hash-tag.ts): BullMQ's scripts touch several keys at once.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { QueueRedis } from '../../core/queue/queue-redis.ts';

/** A connection to the queue's Redis, whichever kind it is. */
export type QueueClient = Redis | Cluster;

/** A plain URL is one Redis. */
export type QueueRedisTarget = QueueRedis | string;

// Connection errors surface as failed commands (ingest's 503, the worker's retries); the
// 'error' events themselves would only be printed as "Unhandled error event".
const quiet = <C extends QueueClient>(client: C): C => client.on('error', () => {}) as C;

const retryStrategy = (times: number) => Math.min(100 * times, 1_000);

export function producerConnection(target: QueueRedisTarget, commandTimeoutMs = 2_000): QueueClient {
  return quiet(
    connect(target, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: commandTimeoutMs,
      connectTimeout: commandTimeoutMs,
      retryStrategy,
      lazyConnect: false,
    }),
  );
}

/**
 * Resolves once the client is connected, or after timeoutMs: a fail-fast client refuses every
 * command while it connects, so a caller that has just created one waits here for its first.
 */
export function whenReady(client: QueueClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    client.on('ready', done);
  });
}

export function workerConnection(target: QueueRedisTarget): QueueClient {
  return quiet(connect(target, { maxRetriesPerRequest: null, retryStrategy }));
}

function connect(target: QueueRedisTarget, options: RedisOptions): QueueClient {
  const redis = typeof target === 'string' ? { mode: 'single' as const, url: target } : target;
  switch (redis.mode) {
    case 'single':
      return new Redis(redis.url, options);
    case 'sentinel':
      // ioredis asks the sentinels for the master and follows a failover: on a READONLY
      // reply or a lost connection it asks them again. Not failoverDetector: it moves each
      // connection at its own moment, and the queue test's workers then took jobs from the
      // old master's copy and finished them on the new one ("Missing key for job").
      return new Redis({
        ...options,
        sentinels: redis.sentinels.map(({ host, port }) => ({ host, port })),
        name: redis.name,
        ...auth(redis),
        ...(redis.sentinelPassword ? { sentinelPassword: redis.sentinelPassword } : {}),
        sentinelRetryStrategy: retryStrategy,
      });
    case 'cluster':
      return new Cluster(
        redis.nodes.map(({ host, port }) => ({ host, port })),
        clusterOptions(options, auth(redis)),
      );
  }
}

function clusterOptions(options: RedisOptions, credentials: RedisOptions): ClusterOptions {
  const { enableOfflineQueue, lazyConnect, retryStrategy: _perNode, ...perNode } = options;
  return {
    // Per node: the commands' timeouts and retries, and the credentials. Not lazyConnect: a
    // node connection must stay lazy (status "wait", which queues), or, with no offline queue,
    // the cluster refuses every command to a node still connecting ("Connection is closed"),
    // its own ready check first: a new client then went round reconnecting for seconds.
    redisOptions: { ...perNode, ...credentials },
    clusterRetryStrategy: retryStrategy,
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    // A failover moves the queue's slot: follow MOVED at once, and let a command wait for
    // the slot's new master instead of failing while the cluster elects it.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: options.connectTimeout ?? 2_000,
  };
}

function auth(redis: { readonly username?: string; readonly password?: string }): RedisOptions {
  return {
    ...(redis.username ? { username: redis.username } : {}),
    ...(redis.password ? { password: redis.password } : {}),
  };
}
