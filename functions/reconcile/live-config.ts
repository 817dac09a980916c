// redis.conf settings Redis can change live are applied with CONFIG SET on every node, with
// no restart. Values are compared the way Redis normalizes them (memory units, yes/no), so a
// converged node gets no command; the result lists the settings that really changed.
import type { Address } from '../../shared/core/cluster/topology.ts';
import { command, type NodePool } from '../../shared/io/redis/connection.ts';

const units: Record<string, number> = {
  b: 1,
  k: 1000,
  kb: 1024,
  m: 1000 ** 2,
  mb: 1024 ** 2,
  g: 1000 ** 3,
  gb: 1024 ** 3,
};
/** The classes `A` stands for in notify-keyspace-events (Redis prints `A` for all of them). */
const ALL_KEYSPACE_CLASSES = 'g$lshzxetd';

/** A value as CONFIG SET takes it: `""`, redis.conf's empty value, is the empty string there. */
export function configSetValue(value: string): string {
  return /^\s*(""|'')\s*$/.test(value) ? '' : value;
}

/**
 * Redis' own spelling of a value, word by word: `100mb` -> `104857600`, `YES` -> `yes`, spaces
 * folded, `""` empty; client classes and keyspace-event flags as CONFIG GET prints them.
 */
export function normalizeValue(value: string, key = ''): string {
  const v = configSetValue(value).trim().replace(/\s+/g, ' ');
  // Flags are case-sensitive (E: keyevent, e: evicted) and printed in Redis' own order.
  if (key === 'notify-keyspace-events') return [...new Set(v.replace('A', ALL_KEYSPACE_CLASSES))].sort().join('');
  return v
    .toLowerCase()
    .split(' ')
    .map((word) => {
      const memory = /^(\d+)(b|k|kb|m|mb|g|gb)$/.exec(word);
      if (memory) return String(Number(memory[1]) * (units[memory[2] ?? 'b'] ?? 1));
      return key === 'client-output-buffer-limit' && word === 'replica' ? 'slave' : word;
    })
    .join(' ');
}

/** Whether Redis' value of `key` already is the wanted one (of client-output-buffer-limit, the classes the spec names). */
export function sameValue(key: string, current: string, wanted: string): boolean {
  const have = normalizeValue(current, key);
  const want = normalizeValue(wanted, key);
  if (key !== 'client-output-buffer-limit') return have === want;
  // Redis prints every class as `class hard soft seconds`; setting one class keeps the others.
  const classes = (v: string) =>
    v.split(' ').flatMap((w, i, all) => (i % 4 === 0 ? [all.slice(i, i + 4).join(' ')] : []));
  const held = new Set(classes(have));
  return classes(want).every((c) => held.has(c));
}

export async function applyLiveConfig(
  pool: NodePool,
  nodes: readonly Address[],
  wanted: Readonly<Record<string, string>>,
): Promise<string[]> {
  const changed = new Set<string>();
  const keys = Object.keys(wanted);
  if (keys.length === 0) return [];
  await Promise.all(
    nodes.map(async (address) => {
      const current = await command<string[]>(pool, address, 'CONFIG GET', ['CONFIG', 'GET', ...keys]);
      const have = new Map<string, string>();
      for (let i = 0; i + 1 < current.length; i += 2) have.set(String(current[i]), String(current[i + 1]));
      const set: string[] = [];
      for (const key of keys) {
        const value = wanted[key] as string;
        if (have.has(key) && !sameValue(key, have.get(key) as string, value)) set.push(key, configSetValue(value));
      }
      if (set.length === 0) return;
      await command(pool, address, 'CONFIG SET', ['CONFIG', 'SET', ...set]);
      for (let i = 0; i < set.length; i += 2) changed.add(set[i] as string);
    }),
  );
  return [...changed].sort();
}
