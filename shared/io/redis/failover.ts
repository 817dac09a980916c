// CLUSTER FAILOVER on a replica, then wait until it reports itself master. DEFAULT for planned
// restarts (the master stops writes until the replica caught up: no write is lost), FORCE when
// a majority of masters agreed the master failed and Redis did not promote by itself. Never
// TAKEOVER: it bypasses the majority, and a partition's minority side would discard writes.
import { FailoverTimeoutError } from '../../core/cluster/errors.ts';
import type { NodeRef, Step } from '../../core/cluster/steps.ts';
import { command, nodeName, type NodePool } from './connection.ts';

export async function failover(
  pool: NodePool,
  replica: NodeRef,
  mode: Extract<Step, { kind: 'failover' }>['mode'],
  timeoutMs = 20_000,
  signal?: AbortSignal,
): Promise<void> {
  const args = mode === 'default' ? ['CLUSTER', 'FAILOVER'] : ['CLUSTER', 'FAILOVER', mode.toUpperCase()];
  await command(pool, replica.address, `CLUSTER FAILOVER ${mode}`, args);
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; attempt < 10_000 && Date.now() < deadline; attempt++) {
    signal?.throwIfAborted();
    const role = await command<unknown[]>(pool, replica.address, 'ROLE', ['ROLE']);
    if (role[0] === 'master') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new FailoverTimeoutError(nodeName(replica.address), timeoutMs);
}
