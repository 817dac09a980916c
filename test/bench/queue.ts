// `npm run bench -- queue`: the event pipeline on a real redis-server.
//   1. ingest alone: 10,000 CloudEvents over 100 keys, then over 10,000 keys, POSTed to one
//      ingest process by a sender process (64 in flight), no worker running -> events/s and
//      ingest's CPU per event
//   2. storm: the same beside 4 worker processes x concurrency 8 running a 20 ms reconcile
//      (all on the same cores) -> events/s, runs per event
//   3. latency: one event at a time on an idle queue -> event-sent to reconcile-start p50/p99
// `-- queue [EVENTS] [--runs bundle|sources] [--shared-cores]`: ingest runs the bundle the image
// runs (built first), or with --runs sources the TypeScript through tsx. Ingest gets a core of
// its own (taskset: core 1 for ingest, core 0 for the bench, its sender, Redis and workers), so
// its events/s is one process's, not what is left of the cores beside the sender and Redis; with
// --shared-cores all share every core.
import { CloudEvent, HTTP } from 'cloudevents';
import { sendEvents } from './event-load-process.ts';
import { cpuSeconds } from './proc.ts';
import { Redis } from 'ioredis';
import { startRedis } from '../support/redis-server.ts';
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { freePort } from '../support/redis-server.ts';
import { eventAttributes } from '../../shared/core/apiserver-events.ts';
import { producerConnection } from '../../shared/io/queue/connection.ts';
import { createReconcileQueue } from '../../shared/io/queue/reconcile-queue.ts';
import { readRuns } from '../integration/pipeline/recording.ts';
import { Processes, quiet, uniqueNames, until } from '../integration/pipeline/harness.ts';
import { percentile, type BenchResult } from './table.ts';

const RUNS = {
  bundle: [new URL('../../dist/start.js', import.meta.url).pathname],
  sources: ['--import', 'tsx', new URL('../../functions/start.ts', import.meta.url).pathname],
};

/** The real ingest function (`node dist/start.js ingest`, or `npm start -- ingest`) in its own process. */
async function startIngest(runs: keyof typeof RUNS, env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [...RUNS[runs], 'ingest'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await until(
    'ingest to listen',
    () =>
      fetch(url + '/healthz').then(
        (r) => r.status,
        () => 0,
      ),
    (s) => s === 200,
    30_000,
  );
  return {
    url,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Every thread of the process on one core (util-linux taskset). */
function pin(pid: number | undefined, core: number) {
  if (pid === undefined) throw new Error('no process to pin');
  execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
}

/** Issue 13's targets, printed beside the figures. */
const targets = { ingestEventsPerSecond: 5_000, eventToRunP99Ms: 20 };

/** One event for the latency round, posted with fetch. */
function message(name: string, n: number) {
  const { data, ...attributes } = eventAttributes(
    { apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { namespace: 'bench', name } },
    'update',
  );
  const m = HTTP.binary(new CloudEvent({ id: `${name}-${n}`, source: 'https://127.0.0.1:6443', ...attributes, data }));
  return { headers: m.headers as Record<string, string>, body: String(m.body) };
}

export default async function bench(args: string[]): Promise<BenchResult> {
  const runs = args.includes('--runs') ? args[args.indexOf('--runs') + 1] : 'bundle';
  if (runs !== 'bundle' && runs !== 'sources') throw new Error(`--runs is bundle or sources, not ${runs}`);
  if (runs === 'bundle') execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  const events = Number(args.find((a) => /^\d+$/.test(a)) ?? 10_000);
  const pinned = !args.includes('--shared-cores') && availableParallelism() >= 2;
  // The bench process first: what it starts from now on (Redis, the sender) inherits core 0.
  if (pinned) pin(process.pid, 0);
  const redis = await startRedis({ args: ['--appendonly', 'yes', '--appendfsync', 'everysec'] });
  const processes = new Processes();
  const names = uniqueNames('bench');
  const queue = createReconcileQueue({ connection: producerConnection(redis.url), names });
  // The queue path alone: with a token, every event after the first hits ingest's review cache.
  const server = await startIngest(runs, {
    REDIS_URL: redis.url,
    QUEUE_PREFIX: names.prefix,
    QUEUE_NAME: names.queue,
    INGEST_AUTH: 'none',
  });
  if (pinned) pin(server.pid, 1);
  const recorder = new Redis(redis.url);
  const post = async (m: { headers: Record<string, string>; body: string }) => {
    const res = await fetch(server.url + '/', { method: 'POST', headers: m.headers, body: m.body });
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`ingest answered ${res.status}`);
  };
  // One round: `events` events over `keys` keys, 64 in flight, from a process of its own.
  const round = async (label: string, keys: number) => {
    // The queue's Redis shares the cores: its CPU per event says how much of a round is Redis'.
    const cpuBefore = { ingest: cpuSeconds(server.pid), redis: cpuSeconds(redis.process.pid) };
    const report = await sendEvents({ url: server.url, events, keys, inFlight: 64, round: label });
    const cpu = cpuSeconds(server.pid) - cpuBefore.ingest;
    const redisCpu = cpuSeconds(redis.process.pid) - cpuBefore.redis;
    if (report.refused > 0) throw new Error(`ingest refused ${report.refused} of ${events} events`);
    return {
      perSecond: Math.round(events / report.seconds),
      cpuUsPerEvent: Math.round((cpu * 1e6) / events),
      redisCpuUsPerEvent: Math.round((redisCpu * 1e6) / events),
    };
  };
  try {
    // 1: ingest alone (no worker competing for the CPU): events/s of one process, after a
    // warm-up round (the JIT, the connections).
    await sendEvents({ url: server.url, events: 2_000, keys: 100, inFlight: 64, round: 'warm' });
    const alone = await round('a', 100);
    await queue.bull.obliterate({ force: true });
    const distinct = await round('d', 10_000);
    await queue.bull.obliterate({ force: true });

    const worker = {
      redis: redis.url,
      prefix: names.prefix,
      queue: names.queue,
      list: names.list,
      runMs: 20,
      concurrency: 8,
      lockDurationMs: 10_000,
      stalledIntervalMs: 5_000,
    };
    await Promise.all([1, 2, 3, 4].map(() => processes.startWorker(worker)));

    // 2: the storm, with the workers running.
    const withWorkers = await round('w', 100);
    await quiet(queue.bull, { checks: 5 });
    const stormRuns = (await readRuns(recorder, names.list)).length;
    await recorder.del(names.list);

    // 3: latency on an idle queue, one event at a time.
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const sentAt = Date.now();
      await post(message(`lat${i}`, i));
      const runs = await until(
        'the run',
        () => readRuns(recorder, names.list),
        (r) => r.length === i + 1,
        10_000,
      );
      latencies.push(runs[i]!.start - sentAt);
    }
    const summary = {
      events,
      runs,
      ingestCoreOfItsOwn: pinned,
      ingestEventsPerSecond: alone.perSecond,
      ingestEventsPerSecond10kKeys: distinct.perSecond,
      eventToRunP99Ms: percentile(latencies, 99),
      ingestCpuUsPerEvent: alone.cpuUsPerEvent,
      ingestCpuUsPerEvent10kKeys: distinct.cpuUsPerEvent,
      redisCpuUsPerEvent: alone.redisCpuUsPerEvent,
      redisCpuUsPerEvent10kKeys: distinct.redisCpuUsPerEvent,
      ingestEventsPerSWithWorkers: withWorkers.perSecond,
      stormRuns,
      runsPerEvent: stormRuns / events,
      latencyP50Ms: percentile(latencies, 50),
      latencyP99Ms: percentile(latencies, 99),
    };
    return {
      tables: [
        {
          title: `ingest alone (${runs}${pinned ? ', on a core of its own' : ', sharing the cores'}): ${events} events, one per request, 64 in flight, sent from another process`,
          columns: ['keys', 'events/s', 'target', 'ingest CPU per event us', 'queue Redis CPU per event us'],
          rows: [
            [
              100,
              alone.perSecond,
              `>= ${targets.ingestEventsPerSecond}`,
              alone.cpuUsPerEvent,
              alone.redisCpuUsPerEvent,
            ],
            [
              10_000,
              distinct.perSecond,
              `>= ${targets.ingestEventsPerSecond}`,
              distinct.cpuUsPerEvent,
              distinct.redisCpuUsPerEvent,
            ],
          ],
        },
        {
          title: `storm: ${events} events over 100 keys beside 4 worker processes x 8, 20 ms reconcile`,
          columns: ['events/s', 'runs', 'runs per event'],
          rows: [[withWorkers.perSecond, stormRuns, summary.runsPerEvent]],
        },
        {
          title: 'event sent -> reconcile start, idle queue (200 events)',
          columns: ['p50 ms', 'p99 ms', 'p99 target ms'],
          rows: [[summary.latencyP50Ms, summary.latencyP99Ms, `<= ${targets.eventToRunP99Ms}`]],
        },
      ],
      summary,
    };
  } finally {
    await processes.killAll();
    recorder.disconnect();
    await server.stop();
    await queue.close();
    await redis.stop();
  }
}
