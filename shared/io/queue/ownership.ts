// Whether a run still owns its key. BullMQ runs one job per key at a time by a lock (a key
// holding the worker's token, renewed while the job runs), but a long reconcile never looks at
// it: after the lock expired (a stalled event loop, a queue-Redis restart that lost it) a second
// run of the same cluster can start beside the first. So a run checks the lock before each
// disruptive step; not being able to read it counts as lost (nothing proves ownership).
import type { Redis } from 'ioredis';
import { OwnershipLostError } from '../../core/outcome.ts';

export interface Ownership {
  /** Throws OwnershipLostError unless the lock still holds this run's token. */
  assertOwner(): Promise<void>;
}

export function lockOwnership(commands: Redis, lockKey: string, token: string | undefined, key: string): Ownership {
  return {
    async assertOwner() {
      let holder: string | null;
      try {
        holder = await commands.get(lockKey);
      } catch (error) {
        throw new OwnershipLostError(key, { cause: error });
      }
      if (token === undefined || holder !== token) throw new OwnershipLostError(key);
    },
  };
}
