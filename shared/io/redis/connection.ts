// Connections to single Redis nodes by address (never a cluster client: the engine must see
// each node's own answer). requirepass/masterauth are supported through `auth`; the password
// is handed to ioredis only and never appears in a message or log line.
import type { ConnectionOptions } from 'node:tls';
import { Redis } from 'ioredis';
import { addressKey, type Address } from '../../core/cluster/topology.ts';
import { ClusterCommandError, NodeUnreachableError } from '../../core/cluster/errors.ts';

export interface RedisAuth {
  readonly username?: string;
  readonly password?: string;
}

export interface NodePoolOptions {
  readonly auth?: RedisAuth;
  /**
   * Per node (by address key), the password it accepts when it differs from `auth`'s: during a
   * rotation a node may accept only the old or only the new one.
   */
  readonly passwordOf?: ReadonlyMap<string, string>;
  readonly connectTimeoutMs?: number;
  readonly commandTimeoutMs?: number;
  /** spec.tls: connect with TLS, verifying the chain (ca) and the name (servername). */
  readonly tls?: ConnectionOptions;
}

export class NodePool {
  private readonly clients = new Map<string, Redis>();
  constructor(readonly options: NodePoolOptions = {}) {}

  get auth(): RedisAuth {
    return this.options.auth ?? {};
  }

  client(address: Address): Redis {
    const key = addressKey(address);
    const existing = this.clients.get(key);
    if (existing && existing.status !== 'end' && existing.status !== 'close') return existing;
    existing?.disconnect();
    const password = this.options.passwordOf?.get(key) ?? this.options.auth?.password;
    const client = new Redis({
      host: address.ip,
      port: address.port,
      ...(this.options.auth?.username ? { username: this.options.auth.username } : {}),
      ...(password ? { password } : {}),
      ...(this.options.tls ? { tls: this.options.tls } : {}),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: true,
      retryStrategy: () => null,
      connectTimeout: this.options.connectTimeoutMs ?? 3_000,
      commandTimeout: this.options.commandTimeoutMs ?? 60_000,
      enableReadyCheck: false,
    });
    client.on('error', () => {
      /* reported by the command that failed */
    });
    this.clients.set(key, client);
    return client;
  }

  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(
      all.map(async (c) => {
        try {
          await c.quit();
        } catch {
          c.disconnect();
        }
      }),
    );
  }
}

export function nodeName(address: Address): string {
  return addressKey(address);
}

const connectionErrors =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection is closed|Command timed out|connect ETIMEDOUT|Stream isn't writeable|LOADING|MASTERDOWN/i;

/** Runs one command; connection failures become NodeUnreachableError, refusals ClusterCommandError. */
export async function command<T = unknown>(
  pool: NodePool,
  address: Address,
  operation: string,
  args: (string | number | Buffer)[],
): Promise<T> {
  const [name, ...rest] = args;
  try {
    return (await pool.client(address).call(String(name), ...rest)) as T;
  } catch (error) {
    throw toNodeError(error, operation, address);
  }
}

function toNodeError(error: unknown, operation: string, address: Address): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (connectionErrors.test(message)) return new NodeUnreachableError(nodeName(address), { cause: error });
  return new ClusterCommandError(operation, nodeName(address), message, { cause: error });
}

/** Runs commands in one pipeline; per-command errors are returned, connection loss thrown. */
export async function pipeline(
  pool: NodePool,
  address: Address,
  operation: string,
  commands: (string | number | Buffer)[][],
  buffers = false,
): Promise<[Error | null, unknown][]> {
  if (commands.length === 0) return [];
  const p = pool.client(address).pipeline();
  for (const [name, ...rest] of commands) {
    if (buffers) p.callBuffer(String(name), ...rest);
    else p.call(String(name), ...rest);
  }
  let results: [Error | null, unknown][] | null;
  try {
    results = await p.exec();
  } catch (error) {
    throw toNodeError(error, operation, address);
  }
  if (!results) throw new NodeUnreachableError(nodeName(address));
  for (const [error] of results)
    if (error && connectionErrors.test(error.message))
      throw new NodeUnreachableError(nodeName(address), { cause: error });
  return results;
}
