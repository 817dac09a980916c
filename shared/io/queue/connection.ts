// ioredis connections for the queue. Producers fail fast (no offline queue, short timeouts)
// so ingest can answer 503 at once while Redis is down; workers wait and retry forever, as
// BullMQ's blocking commands require.
import { Redis } from 'ioredis';

// Connection errors surface as failed commands (ingest's 503, the worker's retries); the
// 'error' events themselves would only be printed as "Unhandled error event".
const quiet = (client: Redis) => client.on('error', () => {});

export function producerConnection(url: string, commandTimeoutMs = 2_000): Redis {
  return quiet(
    new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: commandTimeoutMs,
      connectTimeout: commandTimeoutMs,
      retryStrategy: (times) => Math.min(100 * times, 1_000),
      lazyConnect: false,
    }),
  );
}

export function workerConnection(url: string): Redis {
  return quiet(
    new Redis(url, {
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(100 * times, 1_000),
    }),
  );
}
