// CLUSTER SHARDS reply (nested arrays of alternating names and values, Redis >= 7.0) -> typed
// shards: slot ranges and nodes with role, replication offset and health.
import type { SlotRange } from './slots.ts';

export interface ShardNode {
  readonly id: string;
  readonly ip: string;
  readonly port: number;
  readonly role: 'master' | 'replica';
  readonly replicationOffset: number;
  readonly health: 'online' | 'failed' | 'loading';
}

export interface Shard {
  readonly slots: readonly SlotRange[];
  readonly nodes: readonly ShardNode[];
}

export class ClusterShardsParseError extends Error {
  override readonly name = 'ClusterShardsParseError';
}

function pairs(value: unknown, what: string): Map<string, unknown> {
  if (!Array.isArray(value) || value.length % 2 !== 0)
    throw new ClusterShardsParseError(`${what} is not a list of name/value pairs`);
  const map = new Map<string, unknown>();
  for (let i = 0; i < value.length; i += 2) map.set(String(value[i]), value[i + 1]);
  return map;
}

export function parseClusterShards(reply: unknown): Shard[] {
  if (!Array.isArray(reply)) throw new ClusterShardsParseError('CLUSTER SHARDS reply is not a list');
  return reply.map((raw, i): Shard => {
    const shard = pairs(raw, `shard ${i}`);
    const flat = ((shard.get('slots') as unknown[] | undefined) ?? []).map(Number);
    const slots: SlotRange[] = [];
    for (let j = 0; j + 1 < flat.length; j += 2) slots.push({ start: flat[j] ?? 0, end: flat[j + 1] ?? 0 });
    const nodes = ((shard.get('nodes') as unknown[] | undefined) ?? []).map((n, k): ShardNode => {
      const node = pairs(n, `shard ${i} node ${k}`);
      const text = String(node.get('health'));
      const health: ShardNode['health'] = text === 'online' || text === 'loading' ? text : 'failed';
      return {
        id: String(node.get('id')),
        ip: String(node.get('ip') ?? node.get('endpoint') ?? ''),
        port: Number(node.get('port') ?? node.get('tls-port') ?? 0),
        role: node.get('role') === 'master' ? ('master' as const) : ('replica' as const),
        replicationOffset: Number(node.get('replication-offset') ?? 0),
        health,
      };
    });
    return { slots, nodes };
  });
}
