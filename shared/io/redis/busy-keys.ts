// BUSYKEY during MIGRATE: a key exists on both ends. REPLACE is safe only when both values are
// the same, which DUMP (serialized value) tells without DEBUG (disabled by default in 7.0).
// The target is asked with ASKING first: it imports the slot but does not own it yet.
import type { NodeRef } from '../../core/cluster/steps.ts';
import { pipeline, type NodePool } from './connection.ts';

export async function resolveBusyKeys(pool: NodePool, source: NodeRef, target: NodeRef, keys: readonly Buffer[]): Promise<{ differing: number }> {
  const here = await pipeline(pool, source.address, 'DUMP', keys.map((k) => ['DUMP', k]), true);
  const there = await pipeline(pool, target.address, 'DUMP', keys.flatMap((k) => [['ASKING'], ['DUMP', k]]), true);
  let differing = 0;
  keys.forEach((_, i) => {
    const a = here[i]?.[1] as Buffer | null | undefined;
    const b = there[i * 2 + 1]?.[1] as Buffer | null | undefined;
    if (a && b && !a.equals(b)) differing++;
  });
  return { differing };
}
