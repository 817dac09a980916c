import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudEvent, HTTP } from 'cloudevents';
import { Redis } from 'ioredis';
import { startRedis, freePort, type RedisServer } from '../../support/redis-server.ts';
import { listen, notFound, probeRoutes, type Listening } from '../../../shared/io/http.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { producerConnection } from '../../../shared/io/queue/connection.ts';
import { createReconcileQueue, type ReconcileQueue } from '../../../shared/io/queue/reconcile-queue.ts';
import { startQueueWorker } from '../../../shared/io/queue/queue-worker.ts';
import { defaultBackoff } from '../../../shared/core/queue/backoff.ts';
import { ingestHandler } from '../../../functions/ingest/app.ts';
import { anySender } from '../../../functions/ingest/sender-auth.ts';
import { readRuns, recordingReconcile } from './recording.ts';
import { quiet, uniqueNames, until } from './harness.ts';

// The queue's Redis must persist what it acknowledged: appendonly with fsync on every write.
const persistent = ['--appendonly', 'yes', '--appendfsync', 'always'];
const log = createLogger({ level: 'silent' });

function clusterEvent(name: string): { headers: Record<string, unknown>; body: unknown } {
  const { data, ...attributes } = eventAttributes(
    { apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { namespace: 'restart', name } },
    'update',
  );
  return HTTP.binary(
    new CloudEvent({ id: `${name}-${Date.now()}`, source: 'https://127.0.0.1:6443', ...attributes, data }),
  );
}

describe("ingest across a restart of the queue's Redis", function () {
  this.timeout(120_000);
  let dir: string;
  let port: number;
  let redis: RedisServer | undefined;
  let server: Listening;
  let queue: ReconcileQueue;
  const names = uniqueNames('restart');

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'knredis-restart-'));
    port = await freePort();
    redis = await startRedis({ port, dir, args: persistent });
    queue = createReconcileQueue({ connection: producerConnection(redis.url, 500), names });
    const ingest = ingestHandler({
      enqueue: queue.enqueue,
      // Senders are not this test's subject (test/integration/pipeline/ingest-auth.test.ts).
      checkSender: anySender,
      maxBodyBytes: 1 << 20,
      maxEvents: 100,
      retryAfterS: 2,
      log,
    });
    server = await listen(notFound, 0, '127.0.0.1', new Map([...probeRoutes({}), ['POST /', ingest]]));
  });
  after(async () => {
    await server?.close();
    await queue?.close();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (message: { headers: Record<string, unknown>; body: unknown }) =>
    fetch(server.url + '/', {
      method: 'POST',
      headers: message.headers as Record<string, string>,
      body: String(message.body),
    });

  it('answers 503 while Redis is down, recovers by itself, and loses nothing it accepted', async () => {
    const accepted: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await post(clusterEvent(`c${i}`));
      expect(res.status).to.equal(202);
      accepted.push(`restart/c${i}`);
    }
    // 1: down: every event is refused with 503 and Retry-After, none accepted.
    await redis!.kill('SIGKILL');
    for (let i = 0; i < 5; i++) {
      const res = await post(clusterEvent(`down${i}`));
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('2');
      expect(await res.json()).to.have.property('error', 'queue-unavailable');
    }
    // 2: back on the same port and files: ingest reconnects without help.
    redis = await startRedis({ port, dir, args: persistent });
    await until(
      'ingest to accept again',
      async () => (await post(clusterEvent('after'))).status,
      (status) => status === 202,
      30_000,
    );
    accepted.push('restart/after');
    // 3: a worker runs every key accepted before and after the restart.
    const recorder = new Redis(redis.url);
    const worker = startQueueWorker({
      redis: redis.url,
      names,
      reconcile: recordingReconcile(recorder, names.list, { runMs: 1 }),
      log,
      settings: {
        concurrency: 8,
        timeoutMs: 10_000,
        lockDurationMs: 5_000,
        stalledIntervalMs: 2_000,
        maxStalledCount: 5,
        backoff: defaultBackoff,
      },
    });
    try {
      await quiet(queue.bull);
      const ran = new Set((await readRuns(recorder, names.list)).map((r) => r.key));
      expect(
        accepted.filter((key) => !ran.has(key)),
        'accepted keys that never ran',
      ).to.deep.equal([]);
      expect(
        [...ran].some((key) => key.startsWith('restart/down')),
        'a refused event ran',
      ).to.equal(false);
    } finally {
      await worker.close();
      recorder.disconnect();
    }
  });
});
