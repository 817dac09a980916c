// The periodic resync end to end: worker processes with RESYNC_INTERVAL_MS=1000 list every
// RedisCluster on the real API server through the BullMQ job scheduler and queue each key;
// no event is ever sent, so every run seen here comes from the resync.
import { expect } from 'chai';
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import { API_VERSION_V1BETA1, KIND } from '../../../shared/core/api/group.ts';
import { resyncSchedulerId } from '../../../shared/io/queue/resync.ts';
import { resyncJobName } from '../../../shared/io/queue/job-options.ts';
import { readRuns } from './recording.ts';
import { uniqueNames, until } from './harness.ts';

const everyMs = 1_000;
const jitterMs = 300;
const workerScript = new URL('./resync-worker.ts', import.meta.url).pathname;

describe('periodic resync', function () {
  this.timeout(180_000);
  let api: InstalledApi;
  let ns: string;
  let redis: RedisServer;
  let client: Redis;
  const children: ChildProcess[] = [];
  const keys: string[] = [];

  before(async () => {
    api = await installApi('knredis-resync-test');
    ns = await api.namespace(`rs-${randomUUID().slice(0, 6)}`);
    for (const name of ['a', 'b', 'c', 'd']) {
      await api.objects.create({
        apiVersion: API_VERSION_V1BETA1,
        kind: KIND,
        metadata: { name, namespace: ns },
        spec: { masters: 3 },
      });
      keys.push(`${ns}/${name}`);
    }
    redis = await startRedis();
    client = new Redis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(
      children.splice(0).map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
  });
  after(async () => {
    client?.disconnect();
    await redis?.stop();
    await api?.stop();
  });

  async function startWorkers(count: number, names: ReturnType<typeof uniqueNames>): Promise<ChildProcess[]> {
    const settings = {
      redis: redis.url,
      prefix: names.prefix,
      queue: names.queue,
      list: names.list,
      kubeconfig: api.env.kubeconfigPath,
      everyMs,
      jitterMs,
    };
    return Promise.all(
      Array.from({ length: count }, async () => {
        const child = fork(workerScript, [JSON.stringify(settings)], {
          execArgv: ['--import', 'tsx'],
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        children.push(child);
        await new Promise<void>((resolve, reject) => {
          child.once('message', () => resolve());
          child.once('exit', (code) => reject(new Error(`resync worker exited with ${code} before it was ready`)));
        });
        return child;
      }),
    );
  }

  /** SIGTERM: the worker drains its runs in flight and exits. */
  const stop = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const runsOf = async (names: ReturnType<typeof uniqueNames>) =>
    (await readRuns(client, names.list)).filter((r) => keys.includes(r.key));
  const resyncsOf = async (names: ReturnType<typeof uniqueNames>) =>
    (await client.lrange(`${names.list}:resync`, 0, -1)).map((line) => JSON.parse(line) as { pid: number; at: number });

  it('lists every RedisCluster each period, queues each key after a jittered delay, and runs every key again without any event', async () => {
    const names = uniqueNames('resync');
    const [worker] = await startWorkers(1, names);
    const runs = await until(
      'four runs of every key',
      () => runsOf(names),
      (r) => keys.every((key) => r.filter((run) => run.key === key).length >= 4),
      60_000,
    );
    expect(new Set(runs.map((r) => r.key))).to.deep.equal(new Set(keys));
    expect((await resyncsOf(names)).length).to.be.at.least(4);
    await stop(worker!);
    const queue = new Queue(names.queue, { connection: client, prefix: names.prefix });
    const jobs = (await queue.getJobs(['completed'])).filter((job) => job.name !== resyncJobName);
    expect(jobs.every((job) => job.data.reason === 'resync')).to.equal(true);
    const delays = jobs.map((job) => job.opts.delay ?? 0);
    expect(
      delays.every((ms) => ms >= 0 && ms < jitterMs),
      `delays ${delays.join(', ')}`,
    ).to.equal(true);
    expect(new Set(delays).size).to.be.greaterThan(1);
    // Every run is still in the completed history: a resync job does not trim it.
    expect(jobs.length).to.equal((await readRuns(client, names.list)).length);
  });

  it('has one scheduler for two worker processes: each period is resynced once, by one of them', async () => {
    const names = uniqueNames('resync2');
    const workers = await startWorkers(2, names);
    await until(
      'six resyncs',
      () => resyncsOf(names),
      (r) => r.length >= 6,
      60_000,
    );
    const queue = new Queue(names.queue, { connection: client, prefix: names.prefix });
    expect((await queue.getJobSchedulers()).map((s) => s.key)).to.deep.equal([resyncSchedulerId]);
    for (const child of workers) await stop(child);
    const resyncs = await resyncsOf(names);
    const ticks = (await queue.getJobs(['completed', 'failed']))
      .filter((job) => job.name === 'resync')
      .map((job) => Number(String(job.id).split(':').pop()))
      .sort((a, b) => a - b);
    expect(resyncs.length, 'one resync per scheduled job').to.equal(ticks.length);
    for (let i = 1; i < ticks.length; i++)
      expect(ticks[i]! - ticks[i - 1]!, `ticks ${ticks.join(', ')}`).to.be.at.least(everyMs);
  });
});
