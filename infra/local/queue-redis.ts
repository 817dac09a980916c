// The queue's Redis for the local operator stack: a redis-server on loopback that persists
// what it acknowledged (appendonly, fsync every second), so jobs survive a restart of it.
import { mkdir } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { tail } from './readiness.ts';
import { freeLoopbackPort, spawnStackProcess, type StackProcess } from './stack-process.ts';

export interface QueueRedis {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly process: StackProcess;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.startsWith('+PONG'));
      }
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts the queue's Redis in dir; on `port` when given (a restart keeps its URL and data). */
export async function startQueueRedis(
  dir: string,
  { port: fixedPort, redisServer = 'redis-server' }: { port?: number; redisServer?: string } = {},
): Promise<QueueRedis> {
  await mkdir(dir, { recursive: true });
  const port = fixedPort ?? (await freeLoopbackPort());
  const log = join(dir, 'redis.log');
  const proc = spawnStackProcess({
    name: 'queue-redis',
    command: redisServer,
    cwd: dir,
    log,
    env: process.env,
    args: [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--dir',
      dir,
      '--protected-mode',
      'no',
      '--daemonize',
      'no',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--logfile',
      '',
    ],
  });
  const deadline = Date.now() + 15_000;
  while (!(await ping(port))) {
    if (!proc.alive()) throw new Error(`the queue's redis-server exited while starting; ${log}:\n${tail(log)}`);
    if (Date.now() > deadline) {
      await proc.stop(0);
      throw new Error(`the queue's redis-server did not answer on 127.0.0.1:${port} within 15s; ${log}:\n${tail(log)}`);
    }
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${port}`, port, dir, process: proc };
}
