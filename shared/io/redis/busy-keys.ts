// BUSYKEY during MIGRATE: a key exists on both ends. It happens when a MIGRATE timed out after
// the target restored a key but before the source got the reply: the source kept its copy, and
// clients may have changed it since (while a key exists on a MIGRATING source, clients read and
// write it there; the target is asked only for keys the source no longer has). So while the slot
// is MIGRATING on the source towards this target, the source's copy is the truth and MIGRATE
// ... REPLACE is right. Anything else means the slot moved under us: observe again.
import { parseClusterNodes } from '../../core/cluster/parse-cluster-nodes.ts';
import type { NodeRef } from '../../core/cluster/steps.ts';
import { command, type NodePool } from './connection.ts';

/** Whether `source` has `slot` in MIGRATING towards `target` (its own CLUSTER NODES line). */
export async function isMigratingTo(pool: NodePool, source: NodeRef, target: NodeRef, slot: number): Promise<boolean> {
  const text = await command<string>(pool, source.address, 'CLUSTER NODES', ['CLUSTER', 'NODES']);
  const myself = parseClusterNodes(String(text)).find((e) => e.myself);
  return myself?.migrating.some((m) => m.slot === slot && m.to === target.id) ?? false;
}
