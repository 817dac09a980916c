// Where the queue's Redis is: one server (a URL), a Redis Cluster (seed nodes) or a Redis
// managed by Sentinel (the sentinels and the name of the master they watch). Read from the
// environment by functions/start-config.ts; connected by shared/io/queue/connection.ts.

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export interface QueueRedisAuth {
  readonly username?: string;
  readonly password?: string;
}

export type QueueRedis =
  | { readonly mode: 'single'; readonly url: string }
  | ({ readonly mode: 'cluster'; readonly nodes: readonly HostPort[] } & QueueRedisAuth)
  | ({
      readonly mode: 'sentinel';
      readonly sentinels: readonly HostPort[];
      /** The master group name the sentinels monitor. */
      readonly name: string;
      readonly sentinelPassword?: string;
    } & QueueRedisAuth);

/** "host:port" or "[v6 address]:port"; undefined when it is neither. */
export function parseHostPort(text: string): HostPort | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || !(port >= 1 && port <= 65_535)) return undefined;
  return { host: (match[1] ?? match[2])!, port };
}
