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
      const runs = () => readRuns(client, names.list);
      const ranAfterAcks = async (what: string) => {
        await quiet(queue.bull, { checks: 5 });
        const all = await runs();
        for (const [key, at] of ackedAt) {
          const last = Math.max(...all.filter((r) => r.key === key).map((r) => r.start));
          expect(last, `last run of ${key} starts after its last event acknowledged ${what}`).to.be.at.least(at);
        }
        return all;
      };
      // 1: events arrive up to the end of the failover; each acknowledged one is run after.
      const producer = produce();
      await until('runs before the failover', runs, (r) => r.length >= 20, 60_000);
      await redis.failoverMasterOf(queueKeys(names).base);
      producing = false;
      await producer;
      await ranAfterAcks('before and during the failover');
      // 2: the work goes on: one more event per key, each run after it.
      for (const key of keys) {
        ackedAt.set(key, Date.now());
        await queue.enqueue(key);
      }
      const all = await ranAfterAcks('after the failover');
      expect(overlaps(all), 'runs of one key that overlapped').to.deep.equal([]);
      expect(
        all.filter((r) => r.end === undefined),
        'runs that never ended',
      ).to.deep.equal([]);
    });
  });
