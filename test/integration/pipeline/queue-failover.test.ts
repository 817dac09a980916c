import { expect } from 'chai';
import { producerConnection, type QueueClient } from '../../../shared/io/queue/connection.ts';
import { queueKeys } from '../../../shared/io/queue/keys.ts';
import { createReconcileQueue, type ReconcileQueue } from '../../../shared/io/queue/reconcile-queue.ts';
import { overlaps, readRuns } from './recording.ts';
import { Processes, quiet, uniqueNames, until } from './harness.ts';
import { startQueueRedis, type QueueRedisServer } from './queue-redis.ts';

// The queue's master fails over while events arrive and worker processes run keys: on a Redis
// Cluster the replica of the master holding the queue's slot takes over (CLUSTER FAILOVER), on
// Sentinel the sentinel promotes the replica (SENTINEL FAILOVER).
for (const mode of ['cluster', 'sentinel'] as const)
  describe(`reconcile queue through a failover of its master (${mode})`, function () {
    this.timeout(240_000);
    let redis: QueueRedisServer;
    let client: QueueClient;
    let queue: ReconcileQueue;
    const processes = new Processes();
    const unique = uniqueNames('failover');
    let names: typeof unique;

    before(async () => {
      redis = await startQueueRedis(mode, 44);
      client = redis.client();
      names = { ...unique, prefix: redis.prefixFor(unique.prefix, unique.queue) };
      queue = createReconcileQueue({ connection: producerConnection(redis.target), names });
    });
    after(async () => {
      await processes.killAll();
      await queue?.bull.obliterate({ force: true }).catch(() => {});
      await queue?.close();
      client?.disconnect();
      await redis?.stop();
    });

    it('loses no acknowledged event, never runs a key twice at once, and goes on working', async () => {
      await Promise.all(
        [1, 2].map(() =>
          processes.startWorker({
            redis: redis.target,
            prefix: names.prefix,
            queue: names.queue,
            list: names.list,
            runMs: 100,
            concurrency: 4,
            lockDurationMs: 5_000,
            stalledIntervalMs: 1_000,
          }),
        ),
      );
      const keys = Array.from({ length: 40 }, (_, i) => `failover/c${i}`);
      // Each event is sent until the queue acknowledges it, as the event source retries a 503;
      // the time of the attempt that was acknowledged is what a later run must start after.
      const ackedAt = new Map<string, number>();
      let producing = true;
      const produce = async () => {
        for (let i = 0; producing; i++) {
          const key = keys[i % keys.length]!;
          for (;;) {
            const at = Date.now();
            try {
              await queue.enqueue(key);
              ackedAt.set(key, at);
              break;
            } catch {
              await new Promise((r) => setTimeout(r, 50));
            }
          }
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      const producer = produce();
      const runs = () => readRuns(client, names.list);
      const before = await until('runs before the failover', runs, (r) => r.length >= 20, 60_000);
      await redis.failoverMasterOf(queueKeys(names).base);
      await until('runs after the failover', runs, (r) => r.length >= before.length + 40, 90_000);
      producing = false;
      await producer;
      await quiet(queue.bull, { checks: 5 });
      const all = await runs();
      expect(overlaps(all), 'runs of one key that overlapped').to.deep.equal([]);
      for (const [key, at] of ackedAt) {
        const last = Math.max(...all.filter((r) => r.key === key).map((r) => r.start));
        expect(last, `last run of ${key} starts after its last acknowledged event`).to.be.at.least(at);
      }
      expect(
        all.filter((r) => r.end === undefined),
        'runs that never ended',
      ).to.deep.equal([]);
    });
  });
