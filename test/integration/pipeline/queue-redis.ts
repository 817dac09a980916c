// The queue's Redis for the pipeline tests, of each kind a user can point knredis at: one
// redis-server, a Redis Cluster of 3 masters with a replica each (real redis-server processes
// formed by the cluster engine), or a master and a replica watched by a real Sentinel. Each
// gives what the functions take (target, env), a client for the tests' own bookkeeping, a
// queue prefix that fits it (hash-tagged on a cluster) and a failover of the queue's master.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ClusterHarness } from '../cluster/cluster-harness.ts';
import { converge } from '../../support/converge.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { freePort, isListening, startRedis, withRedis, type RedisServer } from '../../support/redis-server.ts';
import { waitFor } from '../../support/wait-for.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { clusterPrefix } from '../../../shared/core/queue/hash-tag.ts';
import { workerConnection, type QueueClient, type QueueRedisTarget } from '../../../shared/io/queue/connection.ts';

export type QueueMode = 'single' | 'cluster' | 'sentinel';

export interface QueueRedisServer {
  readonly mode: QueueMode;
  readonly target: QueueRedisTarget;
  /** The same target as the functions read it from their environment. */
  readonly env: Record<string, string>;
  /** The prefix the functions would use for `prefix` (tagged on a cluster, as start-config does). */
  prefixFor(prefix: string, queue: string): string;
  /** A connection that waits out failovers (for the tests' own records). */
  client(): QueueClient;
  /** Moves the master that holds `key` to its replica, and resolves once the replica took over. */
  failoverMasterOf(key: string): Promise<void>;
  stop(): Promise<void>;
}

/** suite: the 127.X.<suite>.x addresses of a cluster (one per test file, see cluster-harness.ts). */
export async function startQueueRedis(mode: QueueMode, suite: number): Promise<QueueRedisServer> {
  if (mode === 'cluster') return startCluster(suite);
  if (mode === 'sentinel') return startSentinel();
  const redis = await startRedis();
  return {
    mode,
    target: redis.url,
    env: { REDIS_URL: redis.url },
    prefixFor: (prefix) => prefix,
    client: () => new Redis(redis.url),
    failoverMasterOf: () => Promise.reject(new Error('one redis-server has no replica to fail over to')),
    stop: () => redis.stop(),
  };
}

async function startCluster(suite: number): Promise<QueueRedisServer> {
  const harness = new ClusterHarness({ suite, nodes: 3, zones: 3 });
  const pool = new NodePool();
  try {
    await harness.addPods(6);
    await converge(pool, harness.desired(3, 1));
  } catch (error) {
    await harness.stopAll();
    throw error;
  } finally {
    await pool.close();
  }
  const seeds = harness.pods.slice(0, 3).map((p) => p.placement.address);
  const target: QueueRedisTarget = { mode: 'cluster', nodes: seeds.map(({ ip, port }) => ({ host: ip, port })) };
  return {
    mode: 'cluster',
    target,
    env: { REDIS_CLUSTER_NODES: seeds.map(({ ip, port }) => `${ip}:${port}`).join(',') },
    prefixFor: clusterPrefix,
    client: () => workerConnection(target),
    async failoverMasterOf(key) {
      const ips = harness.pods.map((p) => p.placement.address.ip);
      const slot = (await withRedis(ips[0]!, (r) => r.call('CLUSTER', 'KEYSLOT', key))) as number;
      const master = await masterOfSlot(ips[0]!, slot);
      // A replica of that master, asked for a coordinated failover (no write lost).
      const replica = await waitFor(
        async () => {
          for (const ip of ips) {
            const role = (await withRedis(ip, (r) => r.call('ROLE'))) as unknown[];
            if (role[0] === 'slave' && role[1] === master && role[3] === 'connected') return ip;
          }
          return undefined;
        },
        { what: `a connected replica of ${master}`, timeout: 30_000 },
      );
      // Redis drops a manual failover not done within its own 5 s (a loaded machine): asked
      // again until it takes.
      let asked = 0;
      await waitFor(
        async () => {
          if ((await masterOfSlot(replica, slot)) === replica) return true;
          if (Date.now() - asked > 6_000) {
            asked = Date.now();
            await withRedis(replica, (r) => r.call('CLUSTER', 'FAILOVER'));
          }
          return false;
        },
        { what: `${replica} to hold slot ${slot}`, timeout: 120_000 },
      );
    },
    stop: () => harness.stopAll(),
  };
}

async function masterOfSlot(ip: string, slot: number): Promise<string> {
  const slots = (await withRedis(ip, (r) => r.call('CLUSTER', 'SLOTS'))) as [number, number, [string, number]][];
  const range = slots.find(([from, to]) => slot >= from && slot <= to);
  if (!range) throw new Error(`no node holds slot ${slot}`);
  return range[2][0];
}

async function startSentinel(): Promise<QueueRedisServer> {
  const name = 'queue';
  const master = await startRedis();
  const servers: RedisServer[] = [master];
  try {
    const replica = await startRedis({ args: ['--replicaof', master.host, String(master.port)] });
    servers.push(replica);
    const role = () => withRedis(replica.host, (r) => r.call('ROLE'), replica.port) as Promise<unknown[]>;
    await waitFor(async () => (await role())[3] === 'connected', { what: 'the replica to sync' });
    const sentinel = await startSentinelProcess(name, master);
    const target: QueueRedisTarget = {
      mode: 'sentinel',
      sentinels: [{ host: sentinel.host, port: sentinel.port }],
      name,
    };
    const sentinelOf = () =>
      withRedis(sentinel.host, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name), sentinel.port) as Promise<
        [string, string]
      >;
    await waitFor(async () => (await sentinelOf())[1] === String(master.port), {
      what: 'the sentinel to know the master',
    });
    return {
      mode: 'sentinel',
      target,
      env: { REDIS_SENTINELS: `${sentinel.host}:${sentinel.port}`, REDIS_SENTINEL_NAME: name },
      prefixFor: (prefix) => prefix,
      client: () => workerConnection(target),
      async failoverMasterOf() {
        const before = (await sentinelOf())[1];
        // The sentinel learns of the replica from the master's INFO, which it reads every few
        // seconds: until then it refuses with NOGOODSLAVE (CI beside a CPU hog). Asked again
        // until it takes; INPROG is a failover already under way.
        await waitFor(
          () =>
            withRedis(sentinel.host, (r) => r.call('SENTINEL', 'FAILOVER', name), sentinel.port).then(
              () => true,
              (error: Error) => {
                if (/^(NOGOODSLAVE|INPROG)/.test(error.message)) return error.message.startsWith('INPROG');
                throw error;
              },
            ),
          { what: 'the sentinel to take the failover (a replica it knows)', timeout: 30_000, interval: 500 },
        );
        await waitFor(async () => (await sentinelOf())[1] !== before, {
          what: 'the sentinel to promote the replica',
          timeout: 30_000,
        });
      },
      stop: async () => {
        await sentinel.stop();
        await Promise.all(servers.map((s) => s.stop()));
      },
    };
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    throw error;
  }
}

/** A real Sentinel (redis-server --sentinel) watching `master`, in a directory of its own. */
async function startSentinelProcess(name: string, master: RedisServer) {
  requireCommand('redis-server');
  const dir = await mkdtemp(join(tmpdir(), 'knredis-sentinel-'));
  const port = await freePort();
  // Sentinel rewrites its configuration file as it learns: it must be its own.
  const file = join(dir, 'sentinel.conf');
  await writeFile(
    file,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `logfile ${join(dir, 'sentinel.log')}`,
      `sentinel monitor ${name} ${master.host} ${master.port} 1`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 10000`,
      '',
    ].join('\n'),
  );
  const child = spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(() => child.exitCode === null && isListening('127.0.0.1', port), {
      what: `redis-sentinel on port ${port}`,
      timeout: 10_000,
      interval: 20,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { host: '127.0.0.1', port, stop };
}
