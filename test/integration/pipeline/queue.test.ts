import { expect } from 'chai';
import { Cluster, type Redis } from 'ioredis';
import { createLogger } from '../../../shared/io/log.ts';
import {
  producerConnection,
  whenReady,
  type QueueClient,
  type QueueRedisTarget,
} from '../../../shared/io/queue/connection.ts';
import { createReconcileQueue, type ReconcileQueue } from '../../../shared/io/queue/reconcile-queue.ts';
import {
  startQueueWorker,
  type QueueWorker,
  type QueueWorkerSettings,
  type Reconcile,
} from '../../../shared/io/queue/queue-worker.ts';
import {
  done,
  noted,
  OwnershipLostError,
  requeueAfter,
  TerminalError,
  type Outcome,
} from '../../../shared/core/outcome.ts';
import { runLog, runsKept } from '../../../shared/io/queue/run-log.ts';
import { lockOwnership } from '../../../shared/io/queue/ownership.ts';
import { queueKeys } from '../../../shared/io/queue/keys.ts';
import { readRuns, recordingReconcile, overlaps } from './recording.ts';
import { quiet, uniqueNames, until } from './harness.ts';
import { startQueueRedis, type QueueRedisServer } from './queue-redis.ts';

const log = createLogger({ level: 'silent' });

/** Runs fn on every master: the one redis-server, or each master of a cluster. */
async function onMasters(client: QueueClient, fn: (master: Redis) => Promise<unknown>): Promise<void> {
  await Promise.all((client instanceof Cluster ? client.nodes('master') : [client]).map(fn));
}
const settings: QueueWorkerSettings = {
  concurrency: 4,
  timeoutMs: 10_000,
  lockDurationMs: 5_000,
  stalledIntervalMs: 2_000,
  maxStalledCount: 5,
  backoff: { baseMs: 50, maxMs: 400, jitter: 0 },
};

// Once on one redis-server, once on a Redis Cluster of 3 masters (the queue in one hash slot).
for (const mode of ['single', 'cluster'] as const)
  describe(`reconcile queue (${mode} Redis)`, function () {
    this.timeout(60_000);
    let redis: QueueRedisServer;
    let client: QueueClient;
    let queue: ReconcileQueue;
    let names: ReturnType<typeof uniqueNames>;
    const workers: QueueWorker[] = [];

    before(async function () {
      this.timeout(120_000);
      redis = await startQueueRedis(mode, 42);
      client = redis.client();
    });
    after(async () => {
      client.disconnect();
      await redis.stop();
    });
    beforeEach(() => {
      const unique = uniqueNames('queue');
      names = { ...unique, prefix: redis.prefixFor(unique.prefix, unique.queue) };
      queue = createReconcileQueue({ connection: producerConnection(redis.target), names });
    });
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.close()));
      await queue.bull.obliterate({ force: true }).catch(() => {});
      await queue.close();
    });

    function work(reconcile: Reconcile, overrides: Partial<QueueWorkerSettings> = {}, random = () => 0): QueueWorker {
      const worker = startQueueWorker({
        redis: redis.target,
        names,
        reconcile,
        settings: { ...settings, ...overrides },
        log,
        random,
      });
      workers.push(worker);
      return worker;
    }
    const runs = () => readRuns(client, names.list);
    const delayedJobs = async () =>
      (await queue.bull.getDelayed()).map((j) => ({ key: j.data.key, reason: j.data.reason, delay: j.delay }));

    it('runs a key queued many times once when it was queued before any worker looked', async () => {
      for (let i = 0; i < 20; i++) await queue.enqueue('ns/a');
      await queue.enqueue('ns/b');
      work(recordingReconcile(client, names.list, { runMs: 5 }));
      await quiet(queue.bull);
      const seen = await runs();
      expect(seen.map((r) => r.key).sort()).to.deep.equal(['ns/a', 'ns/b']);
    });

    it('gives exactly one follow-up run, after the run, when changes arrive during a run', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let calls = 0;
      work(async (key, ctx) => {
        calls++;
        const record = recordingReconcile(client, names.list, { runMs: 0 });
        if (calls === 1) {
          await client.rpush(names.list, JSON.stringify({ t: 'start', key, pid: process.pid, at: Date.now() }));
          await gate;
          await client.rpush(names.list, JSON.stringify({ t: 'end', key, pid: process.pid, at: Date.now() }));
          return done();
        }
        return record(key, ctx);
      });
      await queue.enqueue('ns/a');
      await until('the first run', runs, (r) => r.length === 1);
      for (let i = 0; i < 10; i++) await queue.enqueue('ns/a');
      release();
      await quiet(queue.bull);
      const seen = await runs();
      expect(seen).to.have.length(2);
      expect(seen[1]!.start).to.be.at.least(seen[0]!.end!);
      expect(overlaps(seen)).to.deep.equal([]);
    });

    it('runs a key once, and once more after the run, when many concurrent adds share one batch', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const record = recordingReconcile(client, names.list, { runMs: 0 });
      let calls = 0;
      work(async (key, ctx) => {
        if (++calls === 1) await gate;
        return record(key, ctx);
      });
      const burst = () => Promise.all(Array.from({ length: 50 }, () => queue.enqueue('ns/a')));
      await burst();
      await until(
        'the first run',
        () => Promise.resolve(calls),
        (n) => n === 1,
      );
      await burst();
      await burst();
      release();
      await quiet(queue.bull);
      const seen = await runs();
      expect(seen.map((r) => r.key)).to.deep.equal(['ns/a', 'ns/a']);
      expect(overlaps(seen)).to.deep.equal([]);
    });

    it('fails every add of a batch Redis refused, and queues nothing of it', async () => {
      // A primary that demands more replicas than it has refuses every write.
      await onMasters(client, (m) => m.config('SET', 'min-replicas-to-write', '5'));
      try {
        const results = await Promise.all(
          ['ns/a', 'ns/b', 'ns/c'].map((k) =>
            queue.enqueue(k).then(
              () => 'stored',
              () => 'refused',
            ),
          ),
        );
        expect(results).to.deep.equal(['refused', 'refused', 'refused']);
      } finally {
        await onMasters(client, (m) => m.config('SET', 'min-replicas-to-write', '0'));
      }
      expect(await queue.bull.getJobCounts('waiting', 'delayed', 'active')).to.deep.equal({
        waiting: 0,
        delayed: 0,
        active: 0,
      });
    });

    it('retries a failing key with a backoff that doubles, stays capped and starts over after a success', async () => {
      const script: (Outcome | Error)[] = [
        new Error('a'),
        new Error('b'),
        new Error('c'),
        new Error('d'),
        new Error('e'),
        done(),
        new Error('f'),
        done(),
      ];
      let n = 0;
      work(async () => {
        const next = script[n++] ?? done();
        if (next instanceof Error) throw next;
        return next;
      });
      await queue.enqueue('ns/a');
      await until(
        'the success',
        () => Promise.resolve(n),
        (count) => count >= 6,
      );
      await queue.enqueue('ns/a'); // after the success, a new change (deduplicated)
      await quiet(queue.bull);
      expect(n).to.equal(script.length);
      // Every retry is kept with the backoff chosen (read afterwards: a poll of the delayed
      // jobs misses a 50 ms one on a busy machine).
      const history = (await runLog(client, names).read(Date.now())).keys.find((k) => k.key === 'ns/a');
      const delays = [...(history?.runs ?? [])].reverse().flatMap((r) => (r.result === 'retry' ? [r.delayMs] : []));
      expect(delays).to.deep.equal([50, 100, 200, 400, 400, 50]);
    });

    it('runs a key waiting in a long backoff at once when a new event arrives', async () => {
      let n = 0;
      work(
        async (key, ctx) => {
          n++;
          await recordingReconcile(client, names.list, { runMs: 0 })(key, ctx);
          if (n === 1) throw new Error('first run fails');
          return done();
        },
        { backoff: { baseMs: 600_000, maxMs: 600_000, jitter: 0 } },
      );
      await queue.enqueue('ns/a');
      const waiting = await until('the retry to wait', delayedJobs, (d) => d.length === 1);
      expect(waiting[0]).to.include({ key: 'ns/a', reason: 'retry', delay: 600_000 });
      await queue.enqueue('ns/a');
      await until('the second run', runs, (r) => r.length === 2);
      await quiet(queue.bull);
      expect(await delayedJobs()).to.deep.equal([]);
    });

    it('waits requeueAfter before the next run, and a new event cuts that wait short', async () => {
      let n = 0;
      work(async (key, ctx) => {
        n++;
        await recordingReconcile(client, names.list, { runMs: 0 })(key, ctx);
        return n === 1 ? requeueAfter(600_000) : done();
      });
      await queue.enqueue('ns/a');
      const waiting = await until('the requeue', delayedJobs, (d) => d.length === 1);
      expect(waiting[0]).to.include({ key: 'ns/a', reason: 'requeue', delay: 600_000 });
      await queue.enqueue('ns/a');
      await until('the second run', runs, (r) => r.length === 2);
      await quiet(queue.bull);
    });

    it('runs a change that arrived during a failing run at once, not after the backoff', async () => {
      let n = 0;
      work(
        async (key, ctx) => {
          n++;
          await recordingReconcile(client, names.list, { runMs: 0 })(key, ctx);
          if (n === 1) {
            await queue.enqueue(key); // a change while running
            throw new Error('fails');
          }
          return done();
        },
        { backoff: { baseMs: 600_000, maxMs: 600_000, jitter: 0 } },
      );
      await queue.enqueue('ns/a');
      await until('the follow-up run', runs, (r) => r.length === 2);
      await quiet(queue.bull);
      expect(await delayedJobs()).to.deep.equal([]);
    });

    it('does not retry a terminal error, and runs the key again on the next event', async () => {
      let n = 0;
      work(async (key, ctx) => {
        n++;
        await recordingReconcile(client, names.list, { runMs: 0 })(key, ctx);
        if (n === 1) throw new TerminalError('spec cannot work');
        return done();
      });
      await queue.enqueue('ns/a');
      await until(
        'the failed job',
        () => queue.bull.getFailed(),
        (f) => f.length === 1,
      );
      await quiet(queue.bull);
      expect(await runs()).to.have.length(1);
      expect(await delayedJobs()).to.deep.equal([]);
      await queue.enqueue('ns/a');
      await until('the run after the event', runs, (r) => r.length === 2);
    });

    it('aborts a reconcile that runs out of time and retries it', async () => {
      let n = 0;
      work(
        async (_key, ctx) => {
          n++;
          if (n === 1) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          return done();
        },
        { timeoutMs: 200 },
      );
      await queue.enqueue('ns/a');
      const failed = await until(
        'the timed-out run',
        () => queue.bull.getFailed(),
        (f) => f.length === 1,
      );
      expect(failed[0]!.failedReason).to.match(/did not finish within 200 ms/);
      await until(
        'the retry',
        async () => n,
        (count) => count === 2,
      );
      await quiet(queue.bull);
    });

    it('stops a run whose lock was taken away before its next disruptive step, counts no failure, and runs the key again', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const steps: string[] = [];
      const seenFailures: number[] = [];
      let stopped: unknown;
      work(async (_key, ctx) => {
        const run = seenFailures.push(ctx.failures);
        try {
          for (let i = 0; i < 3; i++) {
            await ctx.assertOwner();
            steps.push(`${run}.${i}`);
            if (run === 1) await gate;
          }
        } catch (error) {
          stopped = error;
          throw error;
        }
        return done();
      });
      await queue.enqueue('ns/a');
      await until(
        'the first step',
        async () => steps.length,
        (n) => n === 1,
      );
      const [job] = await queue.bull.getActive();
      await client.del(`${names.prefix}:${names.queue}:${job!.id}:lock`);
      release();
      // BullMQ's stalled check finds the job without its lock and runs it again.
      await until(
        'the next run',
        async () => seenFailures.length,
        (n) => n === 2,
      );
      await quiet(queue.bull);
      expect(stopped).to.be.instanceOf(OwnershipLostError);
      expect(steps).to.deep.equal(['1.0', '2.0', '2.1', '2.2']);
      expect(seenFailures, 'failures counted before each run').to.deep.equal([0, 0]);
      expect(await delayedJobs()).to.deep.equal([]);
    });

    it('checks the lock through a connection made just now by waiting for it to connect (a worker started from zero)', async () => {
      const lock = queueKeys(names).lock('1');
      await client.set(lock, 'token-1');
      const fresh = producerConnection(redis.target);
      try {
        await lockOwnership(fresh, lock, 'token-1', 'ns/a').assertOwner();
      } finally {
        fresh.disconnect();
      }
    });

    if (mode === 'cluster')
      it('makes a fresh client ready from one seed node of the cluster without going round reconnecting', async () => {
        // The seed answers CLUSTER SLOTS; the ready check then goes to a node found there, whose
        // connection must queue the command while it connects, not refuse it.
        const target = redis.target as Extract<QueueRedisTarget, { mode: 'cluster' }>;
        const fresh = Array.from({ length: 10 }, () =>
          producerConnection({ ...target, nodes: target.nodes.slice(0, 1) }),
        );
        const reconnects = fresh.map((c) => {
          let n = 0;
          c.on('reconnecting', () => n++);
          return () => n;
        });
        try {
          await Promise.all(fresh.map((c) => whenReady(c, 60_000)));
          expect(fresh.map((c) => c.status)).to.deep.equal(fresh.map(() => 'ready'));
          expect(reconnects.map((n) => n())).to.deep.equal(fresh.map(() => 0));
        } finally {
          fresh.forEach((c) => c.disconnect());
        }
      });

    it('aborts the signal of a run whose lock could not be renewed', async () => {
      let reason: unknown;
      work(async (_key, ctx) => {
        if (reason === undefined)
          reason = await new Promise((resolve) =>
            ctx.signal.addEventListener('abort', () => resolve(ctx.signal.reason)),
          );
        return done();
      });
      await queue.enqueue('ns/a');
      const [job] = await until(
        'the run',
        () => queue.bull.getActive(),
        (a) => a.length === 1,
      );
      await client.del(`${names.prefix}:${names.queue}:${job!.id}:lock`);
      await until(
        'the abort',
        async () => reason,
        (r) => r !== undefined,
      );
      expect(reason).to.be.instanceOf(OwnershipLostError);
      await quiet(queue.bull);
    });

    it('drains the run in flight when the worker is closed', async () => {
      const worker = work(recordingReconcile(client, names.list, { runMs: 500 }));
      await queue.enqueue('ns/a');
      await until('the run', runs, (r) => r.length === 1);
      await worker.close();
      workers.splice(workers.indexOf(worker), 1);
      const seen = await runs();
      expect(seen[0]!.end, 'the run finished before close() returned').to.be.a('number');
      expect(await queue.bull.getCompletedCount()).to.equal(1);
    });

    it('names each job by its key and returns the run: outcome, summary and phase; a failed job keeps the error', async () => {
      let n = 0;
      work(
        async () => {
          n++;
          if (n === 2) throw new Error('Secret s (spec.auth.secretRef) was not found');
          return noted(requeueAfter(n === 1 ? 0 : 600_000), {
            summary: 'migrating slots: 10/20',
            status: { phase: 'Scaling' },
          });
        },
        { backoff: { baseMs: 10, maxMs: 10, jitter: 0 } },
      );
      await queue.enqueue('ns/a');
      await until(
        'three runs',
        async () => n,
        (count) => count === 3,
      );
      await until('the third run to wait its requeue', delayedJobs, (d) => d.length === 1);
      const completed = await until(
        'two completed jobs',
        () => queue.bull.getCompleted(),
        (jobs) => jobs.length === 2,
      );
      expect(completed.map((j) => [j.name, j.returnvalue])).to.deep.equal([
        ['ns/a', { outcome: 'requeue after 10 min', summary: 'migrating slots: 10/20', phase: 'Scaling' }],
        ['ns/a', { outcome: 'requeue after 0 ms', summary: 'migrating slots: 10/20', phase: 'Scaling' }],
      ]);
      const failed = await queue.bull.getFailed();
      expect(failed.map((j) => [j.name, j.failedReason])).to.deep.equal([
        ['ns/a', 'Secret s (spec.auth.secretRef) was not found'],
      ]);
      expect((await delayedJobs())[0]).to.include({ key: 'ns/a', reason: 'requeue', delay: 600_000 });
      expect((await queue.bull.getDelayed())[0]?.name).to.equal('ns/a');
    });

    it('keeps the last runs of each key for the dashboard, capped, and forgets a RedisCluster that is gone', async () => {
      let n = 0;
      const total = runsKept + 3;
      work(async () => {
        n++;
        if (n === total) return noted(done(), { summary: 'the RedisCluster is gone', gone: true });
        return noted(done(), { summary: `run ${n}`, status: { phase: 'Running' } });
      });
      const log = runLog(client, names);
      const history = async () => (await log.read(Date.now())).keys.find((k) => k.key === 'ns/a');
      for (let i = 1; i < total; i++) {
        await queue.enqueue('ns/a');
        await until(
          `run ${i}`,
          async () => (await history())?.runs.length ?? 0,
          (count) => count === Math.min(i, runsKept),
        );
        await until(
          `run ${i} kept`,
          async () => (await history())?.runs[0]?.summary,
          (summary) => summary === `run ${i}`,
        );
      }
      const kept = (await history())!;
      expect(kept.runs.map((r) => r.summary)).to.deep.equal(
        Array.from({ length: runsKept }, (_, i) => `run ${total - 1 - i}`),
      );
      expect(kept.runs[0]).to.include({ key: 'ns/a', result: 'done', phase: 'Running' });
      expect(kept.status).to.deep.equal({ phase: 'Running' });
      await queue.enqueue('ns/a');
      await until('the gone cluster forgotten', history, (h) => h === undefined);
      expect((await log.read(Date.now())).timeline).to.have.length(total);
    });
  });
