// Stage 3 of a slot move: the keys of open slots, from source to target, until the source has
// none left in them. MIGRATE runs synchronously on the source (it waits for the target's
// RESTOREs), and Redis serves a connection's pipelined commands before other clients: whatever
// is queued on the source is what a client's command waits behind. So keys are listed (with
// their sizes, by one script) a few slots at a time, and at most `migrateDepth` MIGRATEs are
// sent to the source at once.
// This stage may stop with keys left (rounds ran out, aborted): the caller checks that the
// source is empty before a slot changes owner.
import { readFileSync } from 'node:fs';
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
  /** Told the keys and bytes (MEMORY USAGE estimates) of each listing, before they move. */
  readonly onListed?: (keys: number, bytes: number) => void;
}

const keysWithSizes = readFileSync(new URL('./lua/keys-with-sizes-0.lua', import.meta.url), 'utf8');

const MAX_KEY_ROUNDS = 100_000;
const MAX_IO_RETRIES = 5;
/** Keys one listing may hold: the script blocks the source while it runs (1.3 us a key here, idle). */
const LIST_KEYS = 512;

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
      const {
        slots: listed,
        batches: work,
        bytes,
      } = await listKeys(pool, source, pending.slice(g, g + group), o.batchKeys, o.batchBytes);
      o.onListed?.(
        work.reduce((n, w) => n + w.keys.length, 0),
        bytes,
      );
      for (let i = 0; i < work.length; i += depth) {
        o.signal?.throwIfAborted();
        const started = performance.now();
        moved += await migrate(pool, source, target, work.slice(i, i + depth), o, retries);
        await pace.after(performance.now() - started);
      }
      again.push(...listed);
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

/**
 * The keys of `slots` (up to `batch` per slot), split into MIGRATE batches of at most
 * `maxBytes`. MIGRATE serializes its whole batch, sends it and waits for the RESTOREs while the
 * source serves nobody: 32 keys of 50 MB would block clients for seconds and could pass the
 * timeout. The sizes are MEMORY USAGE estimates (default sampling: O(1) per key, an estimate for
 * big collections), asked by one script with the listing (lua/keys-with-sizes-0.lua): a
 * MEMORY USAGE command per key cost the operator's client ten times what it cost Redis. A key
 * over the limit goes alone.
 */
async function listKeys(
  pool: NodePool,
  source: NodeRef,
  slots: readonly number[],
  batch: number,
  maxBytes: number,
): Promise<{ slots: number[]; batches: SlotKeys[]; bytes: number }> {
  const [[error, reply] = [null, []]] = await pipeline(
    pool,
    source.address,
    'keys with sizes',
    [['EVAL', keysWithSizes, 0, batch, ...slots]],
    true,
  );
  if (error) throw new ClusterCommandError('keys with sizes', nodeName(source.address), error.message);
  const flat = reply as (Buffer | number)[];
  const listed: number[] = [];
  const batches: SlotKeys[] = [];
  let total = 0;
  for (let at = 0; at < flat.length;) {
    const slot = Number(flat[at]);
    const n = Number(flat[at + 1]);
    const names = flat.slice(at + 2, at + 2 + n) as Buffer[];
    const sizes = flat.slice(at + 2 + n, at + 2 + 2 * n) as number[];
    at += 2 + 2 * n;
    listed.push(slot);
    let keys: Buffer[] = [];
    let bytes = 0;
    names.forEach((key, i) => {
      // A key gone since the listing has no size (-1); MIGRATE skips it.
      const size = Math.max(0, Number(sizes[i]) || 0);
      if (keys.length > 0 && bytes + size > maxBytes) {
        batches.push({ slot, keys });
        keys = [];
        bytes = 0;
      }
      keys.push(key);
      bytes += size;
      total += size;
    });
    if (keys.length > 0) batches.push({ slot, keys });
  }
  return { slots: listed, batches, bytes: total };
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
