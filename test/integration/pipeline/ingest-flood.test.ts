// A flood of events for unique keys against a queue Redis with maxmemory and noeviction, as
// infra/base/queue-redis.yaml runs it: ingest answers 503 queue-full with Retry-After before
// Redis refuses writes, loses none of the events it accepted, and Redis keeps taking writes
// (the workers' steps are writes).
import { expect } from 'chai';
import { CloudEvent } from 'cloudevents';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger } from '../../../shared/io/log.ts';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { readConfig } from '../../../functions/start-config.ts';
import { memoryOf } from '../../../functions/ingest/queue-pressure.ts';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import { serveIngest, uniqueNames } from './harness.ts';

describe('ingest under a flood of unique keys', function () {
  this.timeout(180_000);
  const names = uniqueNames('flood');
  let redis: RedisServer;
  let client: Redis;
  let ingest: Awaited<ReturnType<typeof serveIngest>>;
  let queue: Queue;

  before(async () => {
    redis = await startRedis({ args: ['--maxmemory', '8mb', '--maxmemory-policy', 'noeviction'] });
    client = new Redis(redis.url);
    ingest = await serveIngest(
      readConfig({
        REDIS_URL: redis.url,
        QUEUE_PREFIX: names.prefix,
        QUEUE_NAME: names.queue,
        // This test is about the queue; the senders are ingest-auth.test.ts's.
        INGEST_AUTH: 'none',
        INGEST_QUEUE_CHECK_MS: '20',
        INGEST_RETRY_AFTER_S: '7',
      }),
      createLogger({ level: 'silent' }),
    );
    queue = new Queue(names.queue, { connection: { host: redis.host, port: redis.port }, prefix: names.prefix });
  });
  after(async () => {
    await ingest?.close();
    await queue?.close();
    client?.disconnect();
    await redis?.stop();
  });

  const batch = (first: number, size: number) =>
    JSON.stringify(
      Array.from({ length: size }, (_, i) => {
        const object = {
          apiVersion: 'cache.redis.io/v1beta1',
          kind: 'RedisCluster',
          metadata: { namespace: 'flood', name: `c${first + i}` },
        };
        const { data, ...attributes } = eventAttributes(object, 'add');
        return new CloudEvent({ id: `e${first + i}`, source: 'https://127.0.0.1', ...attributes, data }).toJSON();
      }),
    );

  it('answers 503 queue-full with Retry-After before Redis is full, and every accepted key is queued', async () => {
    let accepted = 0;
    let refusal: Response | undefined;
    // Far more than 8 MB of jobs: the loop ends at the first refusal.
    for (let i = 0; i < 2_000 && !refusal; i++) {
      const res = await fetch(ingest.url + '/', {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents-batch+json' },
        body: batch(accepted, 100),
      });
      if (res.status === 202) accepted += ((await res.json()) as { keys: string[] }).keys.length;
      else refusal = res;
    }
    expect(refusal, 'a refusal').to.not.equal(undefined);
    expect(await refusal!.json()).to.deep.include({ error: 'queue-full' });
    expect(refusal!.status).to.equal(503);
    expect(refusal!.headers.get('retry-after')).to.equal('7');
    expect(accepted).to.be.greaterThan(0);
    // Redis still takes writes: it is below its limit, not refusing with OOM.
    const memory = memoryOf(await client.info('memory'))!;
    expect(memory.used).to.be.lessThan(memory.max);
    expect(await client.set(`${names.prefix}:probe`, 'x'.repeat(10_000))).to.equal('OK');
    // Nothing accepted is lost: one waiting job per accepted key (and no
    // half-queued batch: the refusal came before any of it was queued).
    expect(await queue.getWaitingCount()).to.equal(accepted);
  });
});
