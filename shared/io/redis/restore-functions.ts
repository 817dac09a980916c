// The function libraries of a snapshot (RdbInfo.functions), loaded on every master of the
// target: a cluster does not carry functions from shard to shard, each master needs its own.
// Like keys, a library already there is left alone (no REPLACE): a re-run changes nothing.
import { addressKey, type Address } from '../../core/cluster/topology.ts';
import { ClusterCommandError } from '../../core/cluster/errors.ts';
import { nodeName, pipeline } from './connection.ts';
import { slotOwners, type RestoreTarget } from './restore-keys.ts';

export interface FunctionRestoreResult {
  /** Libraries loaded, counted once per master. */
  loaded: number;
  skippedExisting: number;
}

export async function restoreFunctions(
  target: RestoreTarget,
  libraries: readonly Uint8Array[],
): Promise<FunctionRestoreResult> {
  const result: FunctionRestoreResult = { loaded: 0, skippedExisting: 0 };
  if (libraries.length === 0) return result;
  const masters = new Map<string, Address>();
  for (const owner of await slotOwners(target)) if (owner) masters.set(addressKey(owner), owner);
  await Promise.all(
    [...masters.values()].map(async (address) => {
      const replies = await pipeline(
        target.pool,
        address,
        'FUNCTION LOAD',
        libraries.map((code) => ['FUNCTION', 'LOAD', Buffer.from(code)]),
      );
      for (const [error] of replies) {
        if (!error) result.loaded++;
        else if (/already exists/i.test(error.message)) result.skippedExisting++;
        else throw new ClusterCommandError('FUNCTION LOAD', nodeName(address), error.message);
      }
    }),
  );
  return result;
}
