// Whether a run still owns its key. BullMQ runs one job per key at a time by a lock (a key
// holding the worker's token, renewed while the job runs), but a long reconcile never looks at
// it: after the lock expired (a stalled event loop, a queue-Redis restart that lost it) a second
// run of the same cluster can start beside the first. So a run checks the lock before each
// disruptive step. A lock that cannot be read stops the run too (nothing proves ownership),
// but as an ordinary transient failure: the run may still hold the lock, and then only a
// counted failure schedules its retry. A connection still being made is waited for, up to
// the same bound: a worker just started (a scale from zero) runs its first job at once.
import { whenReady, type QueueClient } from './connection.ts';
import { OwnershipLostError, TransientError } from '../../core/outcome.ts';

export interface Ownership {
  /** Throws OwnershipLostError unless the lock still holds this run's token. */
  assertOwner(): Promise<void>;
}

export function lockOwnership(
  commands: QueueClient,
  lockKey: string,
  token: string | undefined,
  key: string,
  connectWaitMs = 2_000,
): Ownership {
  return {
    async assertOwner() {
      let holder: string | null;
      try {
        await whenReady(commands, connectWaitMs);
        holder = await commands.get(lockKey);
      } catch (error) {
        throw new TransientError(`could not read the queue lock of ${key}; stopping before the next step`, {
          cause: error,
        });
      }
      if (token === undefined || holder !== token) throw new OwnershipLostError(key);
    },
  };
}
