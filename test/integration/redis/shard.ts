// One shard of real redis-servers for snapshot tests: a master filled with data, a replica in
// sync with it. Every server and client is tracked and stopped by stop().
import { Redis } from 'ioredis';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import { waitFor } from '../../support/wait-for.ts';
import { fillDataset } from './dataset.ts';

/** DEBUG DIGEST-VALUE compares values whatever their internal order. */
export const DEBUG_ARGS = ['--enable-debug-command', 'yes'];

export class Servers {
  private servers: RedisServer[] = [];
  private clients: Redis[] = [];

  async start(args: string[] = []): Promise<RedisServer> {
    const server = await startRedis({ args: [...DEBUG_ARGS, ...args] });
    this.servers.push(server);
    return server;
  }

  client(s: { host: string; port: number }): Redis {
    const c = new Redis({ host: s.host, port: s.port, maxRetriesPerRequest: 0 });
    this.clients.push(c);
    return c;
  }

  /** A master filled by `fill`, and a replica in sync with it, started with `replicaArgs`. */
  async shard(replicaArgs: string[], fill: (r: Redis) => Promise<unknown> = fillDataset) {
    const master = await this.start(['--repl-diskless-sync-delay', '0']);
    await fill(this.client(master));
    const replica = await this.start(['--replicaof', master.host, String(master.port), ...replicaArgs]);
    const keys = await this.client(master).dbsize();
    const r = this.client(replica);
    await waitFor(
      async () => /master_link_status:up/.test(await r.info('replication')) && (await r.dbsize()) === keys,
      {
        what: 'the replica in sync',
      },
    );
    return { master, replica };
  }

  async stop(): Promise<void> {
    for (const c of this.clients.splice(0)) c.disconnect();
    await Promise.all(this.servers.splice(0).map((s) => s.stop()));
  }
}
