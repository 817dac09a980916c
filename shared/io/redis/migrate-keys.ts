// Stage 3 of a slot move: the keys of open slots, from source to target, until the source has
// none left in them. MIGRATE runs synchronously on the source (it waits for the target's
// RESTOREs), and Redis serves a connection's pipelined commands before other clients: whatever
// is queued on the source is what a client's command waits behind. So key lists are fetched a
// few slots at a time, and at most `migrateDepth` MIGRATEs are sent to the source at once.
import type { NodeRef } from '../../core/cluster/steps.ts';
import { ClusterCommandError, MigrationConflictError } from '../../core/cluster/errors.ts';
import { pipeline, nodeName, type NodePool } from './connection.ts';
import { migrateAuthArgs } from './migrate-auth.ts';
import { resolveBusyKeys } from './busy-keys.ts';

export interface KeyMoveOptions {
  readonly batchKeys: number;
  readonly migrateDepth: number;
  readonly timeoutMs: number;
  /** Share of the time (0..1] the source may spend on MIGRATE; the rest it serves clients alone. */
  readonly busyShare: number;
}

const MAX_KEY_ROUNDS = 100_000;
const MAX_IO_RETRIES = 5;
/** Keys one GETKEYSINSLOT pipeline may list (a long listing blocks the source too). */
const LIST_KEYS = 8_000;

interface SlotKeys { readonly slot: number; readonly keys: Buffer[] }

/** Moves every key of `slots` (open on both ends); returns how many moved. */
export async function moveKeys(pool: NodePool, source: NodeRef, target: NodeRef, slots: readonly number[], o: KeyMoveOptions): Promise<number> {
  const depth = Math.max(1, o.migrateDepth);
  const group = Math.max(depth, Math.floor(LIST_KEYS / Math.max(1, o.batchKeys)));
  const retries = { io: 0 };
  const pace = pacer(o.busyShare);
  let pending = [...slots];
  let moved = 0;
  // A slot is done once GETKEYSINSLOT finds it empty; a slot that had keys is listed again.
  for (let round = 0; pending.length > 0 && round < MAX_KEY_ROUNDS; round++) {
    const again: number[] = [];
    for (let g = 0; g < pending.length; g += group) {
      const work = await listKeys(pool, source, pending.slice(g, g + group), o.batchKeys);
      for (let i = 0; i < work.length; i += depth) {
        const started = performance.now();
        moved += await migrate(pool, source, target, work.slice(i, i + depth), o, retries);
        await pace.after(performance.now() - started);
      }
      again.push(...work.map((w) => w.slot));
    }
    pending = again;
  }
  return moved;
}

/** Pauses so the source is busy at most `share` of the time; short pauses add up (timers are coarse). */
function pacer(share: number): { after(busyMs: number): Promise<void> } {
  const ratio = share > 0 && share < 1 ? (1 - share) / share : 0;
  let owed = 0;
  return {
    async after(busyMs: number) {
      owed += busyMs * ratio;
      if (owed < 2) return;
      const started = performance.now();
      await new Promise((r) => setTimeout(r, owed));
      owed -= performance.now() - started;
    },
  };
}

async function listKeys(pool: NodePool, source: NodeRef, slots: readonly number[], batch: number): Promise<SlotKeys[]> {
  const lists = await pipeline(pool, source.address, 'GETKEYSINSLOT', slots.map((s) => ['CLUSTER', 'GETKEYSINSLOT', s, batch]), true);
  const work: SlotKeys[] = [];
  lists.forEach(([e, keys], i) => {
    if (e) throw new ClusterCommandError('GETKEYSINSLOT', nodeName(source.address), e.message);
    if ((keys as Buffer[]).length > 0) work.push({ slot: slots[i] as number, keys: keys as Buffer[] });
  });
  return work;
}

/** One pipeline of MIGRATE ... KEYS (one per slot); returns the keys moved. */
async function migrate(pool: NodePool, source: NodeRef, target: NodeRef, work: readonly SlotKeys[], o: KeyMoveOptions, retries: { io: number }): Promise<number> {
  const auth = migrateAuthArgs(pool.auth);
  const command = (w: SlotKeys, replace: boolean) => ['MIGRATE', target.address.ip, target.address.port, '', 0, o.timeoutMs, ...(replace ? ['REPLACE'] : []), ...auth, 'KEYS', ...w.keys];
  const replies = await pipeline(pool, source.address, 'MIGRATE', work.map((w) => command(w, false)));
  let moved = 0;
  for (const [i, [e]] of replies.entries()) {
    const w = work[i] as SlotKeys;
    if (!e) { moved += w.keys.length; continue; }
    if (/BUSYKEY/.test(e.message)) {
      const same = await resolveBusyKeys(pool, source, target, w.keys);
      if (same.differing > 0) throw new MigrationConflictError(w.slot, same.differing, nodeName(source.address), nodeName(target.address));
      // Identical values on both ends: REPLACE loses nothing (redis-cli does the same check).
      const [again] = await pipeline(pool, source.address, 'MIGRATE REPLACE', [command(w, true)]);
      if (again?.[0]) throw new ClusterCommandError('MIGRATE REPLACE', nodeName(source.address), again[0].message);
      moved += w.keys.length;
    } else if (/IOERR|timeout/i.test(e.message) && retries.io < MAX_IO_RETRIES) {
      // The slot is listed again in the next round.
      retries.io++;
      await new Promise((r) => setTimeout(r, 100 * retries.io));
    } else {
      throw new ClusterCommandError('MIGRATE', nodeName(source.address), e.message.replace(/AUTH2? \S+( \S+)?/g, 'AUTH [redacted]'));
    }
  }
  return moved;
}
