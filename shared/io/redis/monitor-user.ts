// The monitoring user on the nodes (shared/core/resources/monitor-user.ts): pods started with
// it in their include file hold it already; a node that lacks it, or holds other rules or
// another password (a pod started before the user existed), gets it with ACL SETUSER. One
// ACL GETUSER a node a pass; a set only where it differs. Only the hash is sent: the password
// itself never leaves its Secret but to the exporter.
import type { Address } from '../../core/cluster/topology.ts';
import { isMonitorUserCurrent, MONITOR_USER, monitorAclRules } from '../../core/resources/monitor-user.ts';
import { quietly } from './auth.ts';
import { command, nodeName, type NodePool } from './connection.ts';

/** Sets the monitoring user where it is not as wanted; returns the nodes (ip:port) it set. */
export async function ensureMonitorUser(pool: NodePool, nodes: readonly Address[], hash: string): Promise<string[]> {
  const set: string[] = [];
  await Promise.all(
    nodes.map(async (address) => {
      const user = await command<unknown[] | null>(pool, address, 'ACL GETUSER', ['ACL', 'GETUSER', MONITOR_USER]);
      if (isMonitorUserCurrent(user ?? undefined, hash)) return;
      const args = ['ACL', 'SETUSER', MONITOR_USER, ...monitorAclRules(hash)];
      await quietly(pool, address, 'ACL SETUSER', args, 'refused setting the monitoring user');
      set.push(nodeName(address));
    }),
  );
  return set.sort();
}
