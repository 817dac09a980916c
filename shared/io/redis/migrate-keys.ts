// Stage 3 of a slot move: the keys of open slots, from source to target, until the source has
// none left in them. MIGRATE runs synchronously on the source (it waits for the target's
// RESTOREs), and Redis serves a connection's pipelined commands before other clients: whatever
// is queued on the source is what a client's command waits behind. So key lists are fetched a
// few slots at a time, and at most `migrateDepth` MIGRATEs are sent to the source at once.
// This stage may stop with keys left (rounds ran out, aborted): the caller checks that the
// source is empty before a slot changes owner.
import type { NodeRef } from '../../core/cluster/steps.ts';
import { ClusterCommandError, StaleObservationError } from '../../core/cluster/errors.ts';
import { pipeline, nodeName, type NodePool } from './connection.ts';
import { migrateAuthArgs } from './migrate-auth.ts';
import { isMigratingTo } from './busy-keys.ts';

export interface KeyMoveOptions {
  readonly batchKeys: number;
  /** Bytes (MEMORY USAGE estimate) per MIGRATE; a larger key goes alone. */
  readonly batchBytes: number;
  readonly migrateDepth: number;
  readonly timeoutMs: number;
  /** Share of the time (0..1] the source may spend on MIGRATE; the rest it serves clients alone. */
  readonly busyShare: number;
  /** Listing rounds before giving up for this pass (a slot refilled as fast as it drains). */
  readonly maxRounds?: number;
  /** Checked between MIGRATE batches: an aborted run stops with every key on one end. */
  readonly signal?: AbortSignal;
}

const MAX_KEY_ROUNDS = 100_000;
const MAX_IO_RETRIES = 5;
/** Keys one GETKEYSINSLOT pipeline may list (a long listing blocks the source too). */
const LIST_KEYS = 8_000;

interface SlotKeys {
  readonly slot: number;
  readonly keys: Buffer[];
}

/** Moves the keys of `slots` (open on both ends); returns how many moved. */
export async function moveKeys(
  pool: NodePool,
  source: NodeRef,
  target: NodeRef,
  slots: readonly number[],
  o: KeyMoveOptions,
): Promise<number> {
  const depth = Math.max(1, o.migrateDepth);
  const group = Math.max(depth, Math.floor(LIST_KEYS / Math.max(1, o.batchKeys)));
  const retries = { io: 0 };
  const pace = pacer(o.busyShare);
  const maxRounds = o.maxRounds ?? MAX_KEY_ROUNDS;
  let pending = [...slots];
  let moved = 0;
  // A slot is done once GETKEYSINSLOT finds it empty; a slot that had keys is listed again.
  for (let round = 0; pending.length > 0 && round < maxRounds; round++) {
    const again: number[] = [];
    for (let g = 0; g < pending.length; g += group) {
      const listed = await listKeys(pool, source, pending.slice(g, g + group), o.batchKeys);
      const work = await byBytes(pool, source, listed, o.batchBytes);
      for (let i = 0; i < work.length; i += depth) {
        o.signal?.throwIfAborted();
        const started = performance.now();
        moved += await migrate(pool, source, target, work.slice(i, i + depth), o, retries);
        await pace.after(performance.now() - started);
      }
      again.push(...listed.map((w) => w.slot));
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
  const lists = await pipeline(
    pool,
    source.address,
    'GETKEYSINSLOT',
    slots.map((s) => ['CLUSTER', 'GETKEYSINSLOT', s, batch]),
    true,
  );
  const work: SlotKeys[] = [];
  lists.forEach(([e, keys], i) => {
    if (e) throw new ClusterCommandError('GETKEYSINSLOT', nodeName(source.address), e.message);
    if ((keys as Buffer[]).length > 0) work.push({ slot: slots[i] as number, keys: keys as Buffer[] });
  });
  return work;
}

/**
 * Splits listed keys into MIGRATE batches of at most `maxBytes`. MIGRATE serializes its whole
 * batch, sends it and waits for the RESTOREs while the source serves nobody: 32 keys of 50 MB
 * would block clients for seconds and could pass the timeout. MEMORY USAGE (default sampling:
 * O(1) per key, an estimate for big collections) is asked for the whole listing in one pipeline,
 * one round trip per listing rather than per batch; a key over the limit goes alone.
 */
async function byBytes(
  pool: NodePool,
  source: NodeRef,
  listed: readonly SlotKeys[],
  maxBytes: number,
): Promise<SlotKeys[]> {
  const sizes = await pipeline(
    pool,
    source.address,
    'MEMORY USAGE',
    listed.flatMap((w) => w.keys.map((k) => ['MEMORY', 'USAGE', k])),
  );
  const batches: SlotKeys[] = [];
  let at = 0;
  for (const w of listed) {
    let keys: Buffer[] = [];
    let bytes = 0;
    for (const key of w.keys) {
      // A key gone since the listing has no size (null); MIGRATE skips it.
      const size = Number(sizes[at++]?.[1] ?? 0) || 0;
      if (keys.length > 0 && bytes + size > maxBytes) {
        batches.push({ slot: w.slot, keys });
        keys = [];
        bytes = 0;
      }
      keys.push(key);
      bytes += size;
    }
    if (keys.length > 0) batches.push({ slot: w.slot, keys });
  }
  return batches;
}

/** One pipeline of MIGRATE ... KEYS (one per batch); returns the keys moved. */
async function migrate(
  pool: NodePool,
  source: NodeRef,
  target: NodeRef,
  work: readonly SlotKeys[],
  o: KeyMoveOptions,
  retries: { io: number },
): Promise<number> {
  const auth = migrateAuthArgs(pool.auth);
  const command = (w: SlotKeys, replace: boolean) => [
    'MIGRATE',
    target.address.ip,
    target.address.port,
    '',
    0,
    o.timeoutMs,
    ...(replace ? ['REPLACE'] : []),
    ...auth,
    'KEYS',
    ...w.keys,
  ];
  const replies = await pipeline(
    pool,
    source.address,
    'MIGRATE',
    work.map((w) => command(w, false)),
  );
  let moved = 0;
  for (const [i, [e]] of replies.entries()) {
    const w = work[i] as SlotKeys;
    if (!e) {
      moved += w.keys.length;
      continue;
    }
    if (/BUSYKEY/.test(e.message)) {
      // The source's copy is the truth while the slot migrates to this target (busy-keys.ts).
      if (!(await isMigratingTo(pool, source, target, w.slot))) {
        throw new StaleObservationError(
          `slot ${w.slot} is no longer migrating from ${nodeName(source.address)} to ${nodeName(target.address)}`,
        );
      }
      const [again] = await pipeline(pool, source.address, 'MIGRATE REPLACE', [command(w, true)]);
      if (again?.[0])
        throw new ClusterCommandError('MIGRATE REPLACE', nodeName(source.address), redacted(again[0].message));
      moved += w.keys.length;
    } else if (/Hash slot not served/i.test(e.message) && retries.io < MAX_IO_RETRIES) {
      // The target imports the slot but knows no owner for it: a node that imports a slot
      // ignores other nodes' claims to it, and once the source it knew was demoted by a
      // failover it dropped that owner too. Tell it the owner; the slot is listed again.
      retries.io++;
      const [set] = await pipeline(pool, target.address, 'SETSLOT NODE', [
        ['CLUSTER', 'SETSLOT', w.slot, 'NODE', source.id],
      ]);
      if (set?.[0]) throw new ClusterCommandError('SETSLOT NODE (importer)', nodeName(target.address), set[0].message);
    } else if (/IOERR|timeout/i.test(e.message) && retries.io < MAX_IO_RETRIES) {
      // The slot is listed again in the next round.
      retries.io++;
      await new Promise((r) => setTimeout(r, 100 * retries.io));
    } else {
      throw new ClusterCommandError('MIGRATE', nodeName(source.address), redacted(e.message));
    }
  }
  return moved;
}

const redacted = (message: string) => message.replace(/AUTH2? \S+( \S+)?/g, 'AUTH [redacted]');
