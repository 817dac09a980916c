// The local stack's queue Redis is set up as the manifests set it up: a password that never
// shows on its command line and survives a restart, and maxmemory with noeviction.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startQueueRedis, type QueueRedis } from '../../../infra/local/queue-redis.ts';

describe("infra/local: the queue's Redis", function () {
  this.timeout(60_000);
  let dir: string;
  let queue: QueueRedis | undefined;
  const clients: Redis[] = [];
  const connect = (password?: string) => {
    const client = new Redis(queue!.url, {
      ...(password ? { password } : {}),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => {
      /* the refused connection's error is what the test reads from the command */
    });
    clients.push(client);
    return client;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'knredis-queue-redis-'));
  });

  afterEach(() => {
    for (const c of clients.splice(0)) c.disconnect();
  });

  after(async () => {
    await queue?.process.stop(10_000);
    await rm(dir, { recursive: true, force: true });
  });

  it('needs its password, which is nowhere on its command line', async () => {
    queue = await startQueueRedis(dir);
    const error = await connect()
      .ping()
      .then(
        () => undefined,
        (e: Error) => e.message,
      );
    expect(error).to.match(/NOAUTH/);
    expect(await connect(queue.password).ping()).to.equal('PONG');
    const cmdline = await readFile(`/proc/${queue.process.pid}/cmdline`, 'utf8');
    expect(cmdline).to.not.include(queue.password);
  });

  it('has maxmemory with noeviction, as the manifests set it', async () => {
    const client = connect(queue!.password);
    expect(await client.config('GET', 'maxmemory-policy')).to.deep.equal(['maxmemory-policy', 'noeviction']);
    expect(await client.config('GET', 'maxmemory')).to.deep.equal(['maxmemory', String(160 * 1024 * 1024)]);
  });

  it('keeps its password and its data through a restart on the same port', async () => {
    const before = queue!;
    await connect(before.password).set('kept', 'yes');
    await before.process.stop(10_000);
    queue = await startQueueRedis(dir, { port: before.port });
    expect(queue.password).to.equal(before.password);
    expect(await connect(queue.password).get('kept')).to.equal('yes');
  });
});
