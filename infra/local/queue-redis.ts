// The queue's Redis for the local operator stack, set up as infra/base/queue-redis.yaml sets it
// up in a cluster: a redis-server on loopback that persists what it acknowledged (appendonly,
// fsync every second), so jobs survive a restart of it; a password, generated once and kept
// in its directory, given on its standard input (never its command line), which the functions
// read as REDIS_PASSWORD; maxmemory with noeviction, so a flood is refused, never evicted.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { tail } from './readiness.ts';
import { freeLoopbackPort, spawnStackProcess, type StackProcess } from './stack-process.ts';

export interface QueueRedis {
  /** Without the password: that travels as REDIS_PASSWORD. */
  readonly url: string;
  readonly password: string;
  readonly port: number;
  readonly dir: string;
  readonly process: StackProcess;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The manifests' figure (infra/base/queue-redis.yaml), so ingest's high-water mark acts alike. */
const MAXMEMORY = '160mb';

/** The password of the queue's Redis kept in dir: made on the first start, the same after a restart. */
async function passwordIn(dir: string): Promise<string> {
  const file = join(dir, 'password');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(24).toString('base64url');
    await writeFile(file, password, { mode: 0o600 });
    return password;
  }
}

function ping(port: number, password: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => socket.write(`AUTH ${password}\r\nPING\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.split('\r\n').length > 2) {
        socket.destroy();
        resolve(reply === '+OK\r\n+PONG\r\n');
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
  const password = await passwordIn(dir);
  const log = join(dir, 'redis.log');
  const proc = spawnStackProcess({
    name: 'queue-redis',
    command: redisServer,
    cwd: dir,
    log,
    env: process.env,
    stdin: `requirepass ${password}\nmaxmemory ${MAXMEMORY}\nmaxmemory-policy noeviction\n`,
    args: [
      '-',
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
  while (!(await ping(port, password))) {
    if (!proc.alive()) throw new Error(`the queue's redis-server exited while starting; ${log}:\n${tail(log)}`);
    if (Date.now() > deadline) {
      await proc.stop(0);
      throw new Error(`the queue's redis-server did not answer on 127.0.0.1:${port} within 15s; ${log}:\n${tail(log)}`);
    }
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${port}`, password, port, dir, process: proc };
}
