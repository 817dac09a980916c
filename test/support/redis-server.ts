// Real redis-server processes for tests: each on its own loopback address and port, in its
// own directory, stopped and removed by stop(). Missing redis-server fails the test: a
// prerequisite is never turned into a skip.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { requireCommand } from './prerequisites.ts';

export interface RedisServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly process: ChildProcess;
  /** Sends a signal (default SIGKILL) and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops the process and removes its directory unless keepDir. */
  stop(options?: { keepDir?: boolean }): Promise<void>;
}

export interface RedisServerOptions {
  host?: string;
  port?: number;
  /** Extra redis-server arguments, e.g. ['--cluster-enabled', 'yes']. */
  args?: string[];
  /** Reuse a directory (for nodes.conf and data that outlive a process). */
  dir?: string;
}

/** A port the OS just handed out on host (listen on 0, then close): free unless raced. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function isListening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A short-lived connection to one node that fails fast rather than retrying. */
export async function withRedis<T>(host: string, fn: (redis: Redis) => Promise<T>, port = 6379): Promise<T> {
  const redis = new Redis({
    host,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
  });
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** Whether a fresh connection to the node is let in with `password` (AUTH, no ready check). */
export async function acceptsPassword(host: string, password: string, port = 6379): Promise<boolean> {
  const redis = new Redis({ host, port, lazyConnect: true, retryStrategy: () => null, enableReadyCheck: false });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await redis.call('AUTH', password).then(
      () => true,
      () => false,
    );
  } finally {
    redis.disconnect();
  }
}

export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  // A port chosen here can be taken by someone else before redis-server binds it: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisOnce(options);
    } catch (error) {
      if (options.port !== undefined || attempt >= 3 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startRedisOnce(options: RedisServerOptions): Promise<RedisServer> {
  requireCommand('redis-server');
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'knredis-redis-')));
  const args = [
    '--bind',
    host,
    '--port',
    String(port),
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'no',
    '--daemonize',
    'no',
    '--logfile',
    join(dir, 'redis.log'),
    ...(options.args ?? []),
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await isListening(host, port))) {
    if (child.exitCode !== null) {
      const log = await readFile(join(dir, 'redis.log'), 'utf8').catch(() => '');
      if (ownDir) await rm(dir, { recursive: true, force: true });
      const message = `redis-server on ${host}:${port} exited with ${child.exitCode}: ${log.trim().split('\n').slice(-2).join(' | ')}`;
      throw /Address already in use/i.test(log) ? new PortTakenError(message) : new Error(message);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on ${host}:${port} did not listen within 10s`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    host,
    port,
    dir,
    process: child,
    url: `redis://${host}:${port}`,
    kill,
    async stop({ keepDir = false } = {}) {
      await kill('SIGKILL');
      if (ownDir && !keepDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
