import { expect } from 'chai';
import { producerConnection, type QueueClient } from '../../../shared/io/queue/connection.ts';
import { createReconcileQueue, type ReconcileQueue } from '../../../shared/io/queue/reconcile-queue.ts';
import { readRuns, overlaps } from './recording.ts';
import { Processes, quiet, uniqueNames, until, type WorkerProcessConfig } from './harness.ts';
import { startQueueRedis, type QueueRedisServer } from './queue-redis.ts';

// Once on one redis-server, once on a Redis Cluster of 3 masters.
for (const mode of ['single', 'cluster'] as const)
  describe(`reconcile queue across worker processes (${mode} Redis)`, function () {
    this.timeout(180_000);
    let redis: QueueRedisServer;
    let client: QueueClient;
    let queue: ReconcileQueue;
    let names: ReturnType<typeof uniqueNames>;
    let processes: Processes;

    before(async () => {
      redis = await startQueueRedis(mode, 43);
      client = redis.client();
    });
    after(async () => {
      client.disconnect();
      await redis.stop();
    });
    beforeEach(() => {
      const unique = uniqueNames('multi');
      names = { ...unique, prefix: redis.prefixFor(unique.prefix, unique.queue) };
      processes = new Processes();
      queue = createReconcileQueue({ connection: producerConnection(redis.target), names });
    });
    afterEach(async () => {
      await processes.killAll();
      await queue.bull.obliterate({ force: true }).catch(() => {});
      await queue.close();
    });

    const config = (overrides: Partial<WorkerProcessConfig> = {}): WorkerProcessConfig => ({
      redis: redis.target,
      prefix: names.prefix,
      queue: names.queue,
      list: names.list,
      runMs: 20,
      concurrency: 8,
      lockDurationMs: 5_000,
      stalledIntervalMs: 2_000,
      ...overrides,
    });

    it('never runs a key twice at once, runs each key after its last event and coalesces when 4 processes x 8 take 10,000 events over 100 keys', async () => {
      // A 200 ms reconcile bounds the runs to 32 slots / 0.2 s whatever the event rate.
      await Promise.all([1, 2, 3, 4].map(() => processes.startWorker(config({ runMs: 200 }))));
      const keys = Array.from({ length: 100 }, (_, i) => `storm/c${i}`);
      const lastEventAt = new Map<string, number>();
      const events = 10_000;
      for (let sent = 0; sent < events; sent += 500) {
        await Promise.all(
          Array.from({ length: 500 }, () => {
            const key = keys[Math.floor(Math.random() * keys.length)]!;
            lastEventAt.set(key, Date.now());
            return queue.enqueue(key);
          }),
        );
      }
      await quiet(queue.bull, { checks: 5 });
      const runs = await readRuns(client, names.list);
      expect(overlaps(runs), 'runs of one key that overlapped').to.deep.equal([]);
      for (const [key, at] of lastEventAt) {
        const last = Math.max(...runs.filter((r) => r.key === key).map((r) => r.start));
        expect(last, `last run of ${key} starts after its last event`).to.be.at.least(at);
      }
      expect(new Set(runs.map((r) => r.key)).size).to.equal(lastEventAt.size);
      expect(new Set(runs.map((r) => r.pid)).size, 'all 4 processes took work').to.equal(4);
      expect(runs.length, 'runs are far fewer than events').to.be.below(events / 4);
      expect(runs.every((r) => r.end !== undefined)).to.equal(true);
    });

    it('runs a key again, and not beside anything, when its worker is SIGKILLed mid-run', async () => {
      const fast = { lockDurationMs: 2_000, stalledIntervalMs: 500 };
      const doomed = await processes.startWorker(config({ runMs: 60_000, concurrency: 1, ...fast }));
      await queue.enqueue('ns/victim');
      await until(
        'the run to start',
        () => readRuns(client, names.list),
        (r) => r.length === 1,
      );
      await processes.kill(doomed, 'SIGKILL');
      // Changes keep arriving while the key's job has lost its worker.
      await queue.enqueue('ns/victim');
      await processes.startWorker(config({ runMs: 20, ...fast }));
      await queue.enqueue('ns/victim');
      const runs = await until(
        'a run after the kill',
        () => readRuns(client, names.list),
        (r) => r.some((run) => run.end !== undefined),
      );
      await quiet(queue.bull);
      const all = await readRuns(client, names.list);
      expect(all[0]!.pid).to.equal(doomed.pid);
      expect(all.filter((r) => r.pid !== doomed.pid).length).to.be.at.least(1);
      expect(overlaps(all, processes.killedAt)).to.deep.equal([]);
      expect(runs[0]!.end).to.equal(undefined);
    });

    it('finishes the run in flight before a worker process exits on SIGTERM', async () => {
      const worker = await processes.startWorker(config({ runMs: 1_000 }));
      await queue.enqueue('ns/a');
      await until(
        'the run to start',
        () => readRuns(client, names.list),
        (r) => r.length === 1,
      );
      await processes.kill(worker, 'SIGTERM');
      expect(worker.exitCode).to.equal(0);
      const [run] = await readRuns(client, names.list);
      expect(run!.end, 'the run ended before the process exited').to.be.a('number');
      expect(await queue.bull.getCompletedCount()).to.equal(1);
    });
  });
