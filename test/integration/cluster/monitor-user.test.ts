// The monitoring user on real redis-server processes: a node started with the pods' start
// script (its auth lines, paths mapped as the local kubelet maps them) holds it; it runs what
// redis_exporter runs, and the real exporter scrapes as it with no command refused; it writes
// nothing and reads no password; the reconcile's step sets it on a node that lacks it (a pod
// started before it existed) or holds other rules, touches nothing on a steady pass, and a
// rotation of the default user's password leaves it logging in.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { exporterBinary } from '../../../infra/local/paths.ts';
import { MONITOR_USER } from '../../../shared/core/resources/monitor-user.ts';
import { AUTH_CONF, MONITOR_HASH_ENV } from '../../../shared/core/resources/redis-command.ts';
import { passwordHash } from '../../../shared/io/redis/auth.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { ensureMonitorUser } from '../../../shared/io/redis/monitor-user.ts';
import { counter } from '../../e2e/observe.ts';
import { freePort, startRedis, type RedisServer } from '../../support/redis-server.ts';
import { runStartScript } from '../../support/start-script.ts';
import { waitFor } from '../../support/wait-for.ts';

const ADMIN = 'cluster-pa55word';
const MONITOR = 'monitor-pa55word';

/** The start script's auth lines (not its exec), run by sh with paths under `dir`: the include file's path. */
async function writeAuthConf(dir: string, monitorHash: string | undefined): Promise<string> {
  const at = await runStartScript(dir, {
    password: ADMIN,
    ...(monitorHash ? { env: { [MONITOR_HASH_ENV]: monitorHash } } : {}),
  });
  return at(AUTH_CONF);
}

async function asUser<T>(node: RedisServer, password: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    host: node.host,
    port: node.port,
    username: MONITOR_USER,
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** Whether a fresh connection is let in as the monitoring user (AUTH, no ready check). */
async function logsIn(node: RedisServer): Promise<boolean> {
  const redis = new Redis({
    host: node.host,
    port: node.port,
    lazyConnect: true,
    retryStrategy: () => null,
    enableReadyCheck: false,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await redis.call('AUTH', MONITOR_USER, MONITOR).then(
      () => true,
      () => false,
    );
  } finally {
    redis.disconnect();
  }
}

async function asAdmin<T>(node: RedisServer, fn: (redis: Redis) => Promise<T>, password = ADMIN): Promise<T> {
  const redis = new Redis({ host: node.host, port: node.port, password, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** What redis_exporter v1.62.0 runs on a cluster node by default (exporter/*.go, redisc's refresh). */
const EXPORTER_COMMANDS = [
  ['PING'],
  ['CLIENT', 'SETNAME', 'redis_exporter'],
  ['INFO', 'ALL'],
  ['INFO'],
  ['CLUSTER', 'INFO'],
  ['CLUSTER', 'SLOTS'],
  ['LATENCY', 'LATEST'],
  ['LATENCY', 'HISTOGRAM'],
  ['SLOWLOG', 'LEN'],
  ['SLOWLOG', 'GET', '1'],
];

/** Writes, admin commands, key reads and what prints a password: all refused. */
const REFUSED = [
  ['SET', 'k', 'v'],
  ['DEL', 'k'],
  ['GET', 'k'],
  ['KEYS', '*'],
  ['SCAN', '0'],
  ['FLUSHALL'],
  ['CONFIG', 'GET', 'requirepass'],
  ['CONFIG', 'GET', 'masterauth'],
  ['CONFIG', 'SET', 'maxmemory', '1'],
  ['CONFIG', 'REWRITE'],
  ['ACL', 'SETUSER', 'default', '>x'],
  ['ACL', 'GETUSER', 'default'],
  ['ACL', 'LIST'],
  ['CLIENT', 'KILL', 'ID', '1'],
  ['CLIENT', 'LIST'],
  ['CLUSTER', 'RESET'],
  ['CLUSTER', 'FAILOVER'],
  ['CLUSTER', 'FORGET', 'x'],
  ['EVAL', 'return 1', '0'],
  ['SLOWLOG', 'RESET'],
  ['SCRIPT', 'FLUSH'],
  ['MIGRATE', '127.0.0.1', '1', 'k', '0', '1'],
  ['PUBLISH', 'c', 'm'],
  ['SHUTDOWN'],
];

describe('the monitoring user on real redis-server processes', function () {
  this.timeout(60_000);
  const hash = passwordHash(MONITOR);
  let dir: string;
  let started: RedisServer;
  let older: RedisServer;
  let exporter: ChildProcess | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'knredis-monitor-user-'));
    const withUser = await writeAuthConf(join(dir, 'new'), hash);
    const without = await writeAuthConf(join(dir, 'old'), undefined);
    started = await startRedis({ args: ['--include', withUser, '--cluster-enabled', 'yes'] });
    older = await startRedis({ args: ['--include', without, '--cluster-enabled', 'yes'] });
    await asAdmin(started, (r) => r.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383'));
  });
  after(async () => {
    exporter?.kill('SIGKILL');
    await started?.stop();
    await older?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("is on a node started with the pods' start script, and runs every command redis_exporter runs", async () => {
    await asUser(started, MONITOR, async (redis) => {
      for (const args of EXPORTER_COMMANDS) await redis.call(args[0]!, ...args.slice(1));
    });
  });

  for (const args of REFUSED)
    it(`is refused ${args.slice(0, 2).join(' ')}`, async () => {
      const reply = await asUser(started, MONITOR, (redis) => redis.call(args[0]!, ...args.slice(1))).then(
        (r) => `answered ${String(r)}`,
        (e: Error) => e.message,
      );
      expect(reply).to.match(/^NOPERM/);
    });

  it('lets the real redis_exporter scrape with redis_up 1 and no command refused', async () => {
    const binary = exporterBinary();
    await access(binary).catch(() => {
      throw new Error(`prerequisite missing: ${binary} (npm run setup builds it)`);
    });
    const port = await freePort();
    exporter = spawn(binary, ['--web.listen-address', `127.0.0.1:${port}`], {
      stdio: 'ignore',
      env: {
        REDIS_ADDR: `redis://${started.host}:${started.port}`,
        REDIS_USER: MONITOR_USER,
        REDIS_PASSWORD: MONITOR,
        REDIS_EXPORTER_IS_CLUSTER: 'true',
        REDIS_EXPORTER_CONFIG_COMMAND: '-',
      },
    });
    const metrics = `http://127.0.0.1:${port}/metrics`;
    await asAdmin(started, (r) => r.call('ACL', 'LOG', 'RESET'));
    expect(await waitFor(() => counter(metrics, 'redis_up'), { what: 'the exporter answering' })).to.equal(1);
    // From CLUSTER INFO (a new master says ok once its first 2 s are over).
    await waitFor(async () => (await counter(metrics, 'redis_cluster_state')) === 1, { what: 'cluster_state ok' });
    expect(await counter(metrics, 'redis_slowlog_length')).to.equal(0);
    const refused = (await asAdmin(started, (r) => r.call('ACL', 'LOG'))) as unknown[][];
    expect(refused.map((entry) => JSON.stringify(entry))).to.deep.equal([]);
  });

  it('is set on a node that lacks it, then left alone: a steady pass sends no ACL SETUSER', async () => {
    const pool = new NodePool({ auth: { password: ADMIN } });
    try {
      const node = { ip: older.host, port: older.port };
      expect(await logsIn(older)).to.equal(false);
      expect(await ensureMonitorUser(pool, [node], hash)).to.deep.equal([`${older.host}:${older.port}`]);
      expect(await asUser(older, MONITOR, (r) => r.ping())).to.equal('PONG');
      const calls = async () =>
        (await asAdmin(older, (r) => r.info('commandstats'))).match(/acl\|setuser:calls=(\d+)/)?.[1];
      const before = await calls();
      expect(await ensureMonitorUser(pool, [node], hash)).to.deep.equal([]);
      expect(await calls()).to.equal(before);
      // Other rules (a command added by hand) are set back.
      await asAdmin(older, (r) => r.call('ACL', 'SETUSER', MONITOR_USER, '+set'));
      expect(await ensureMonitorUser(pool, [node], hash)).to.have.length(1);
      expect(await asUser(older, MONITOR, (r) => r.set('k', 'v')).catch((e: Error) => e.message)).to.match(/^NOPERM/);
    } finally {
      await pool.close();
    }
  });

  it("keeps logging in when the default user's password rotates", async () => {
    const next = 'next-cluster-pa55word';
    await asAdmin(started, async (r) => {
      await r.call('ACL', 'SETUSER', 'default', `>${next}`);
      await r.call('ACL', 'SETUSER', 'default', `!${passwordHash(ADMIN)}`);
    });
    expect(await asAdmin(started, (r) => r.ping(), next)).to.equal('PONG');
    expect(await asUser(started, MONITOR, (r) => r.call('INFO', 'server'))).to.contain('redis_version');
  });
});
