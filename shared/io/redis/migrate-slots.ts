// The slot migrator. Per slot it follows redis-cli's order (src/redis-cli.c,
// clusterManagerMoveSlot): IMPORTING on the target, MIGRATING on the source, GETKEYSINSLOT +
// MIGRATE ... KEYS until the source is empty, then SETSLOT NODE on the target first (so the
// slot always has an owner that accepts it, redis#7116), the source next (a source that just
// gave its last slot may already be a replica: "use SETSLOT only with masters" is fine,
// redis#9223), and every other master last (saves clients a redirect; gossip does it anyway).
// Faster than redis-cli: slots go in chunks whose SETSLOT and GETKEYSINSLOT commands are
// pipelined (redis-cli pays several round trips per slot, each SETSLOT NODE an fsync), and moves
// with disjoint nodes can run in parallel. Gentle on clients: MIGRATE blocks the source until the
// target has restored every key, so by default one MIGRATE of a bounded batch is in flight per
// source, two moves run at once while the keys are small (a move keeps about one core busy: its
// source and target take turns; with large keys one at a time, parallelKeyBytes), and the
// source can be left idle part of the time (busyShare);
// the figures behind these defaults come from `npm run bench -- migrate`. Every stage is
// idempotent, so a run killed anywhere is finished by running the same move again.
import type { NodeRef, SlotMove } from '../../core/cluster/steps.ts';
import { ClusterCommandError, SlotNotEmptyError, StaleObservationError } from '../../core/cluster/errors.ts';
import { pipeline, nodeName, type NodePool } from './connection.ts';
import { moveKeys } from './migrate-keys.ts';

export type MigrationStage = 'importing' | 'migrating' | 'keys' | 'target' | 'source' | 'others';

export interface MigrateOptions {
  /**
   * Keys per GETKEYSINSLOT / MIGRATE (redis-cli: --cluster-pipeline, default 10). A client
   * command that reaches the source during a MIGRATE waits for all of its keys.
   */
  readonly batchKeys?: number;
  /** Bytes per MIGRATE (MEMORY USAGE estimate), whichever of keys and bytes is reached first. */
  readonly batchBytes?: number;
  /** Slots whose SETSLOT commands are pipelined together. */
  readonly chunkSlots?: number;
  /**
   * MIGRATE commands pipelined at once. Each blocks the source while it runs, and Redis runs a
   * client's whole pipeline before serving others: a small depth keeps client latency low.
   */
  readonly migrateDepth?: number;
  /**
   * Moves (source/target pairs with no node in common) run at once, taking turns a chunk at a
   * time. At 5,000,000 keys on 2 shared cores, 2 took 59 s (client p99 4.2 ms) where 1 took
   * 100 s (3.1 ms); more than the cores starves clients.
   */
  readonly parallelMoves?: number;
  /**
   * Moves run in parallel only while the keys listed so far average at most this many bytes
   * (MEMORY USAGE estimates); larger keys go one move at a time. With small keys a move's time
   * goes to round trips and per-key work, and a second move shortens the run at no cost to
   * clients; with large keys it goes to serializing and restoring bytes, and two moves at once
   * starve the client's cores: at 1,000,000 keys of 1 KB, 2 moves took 18.7 s with a client p99
   * of 7.2 ms, 1 move 26.3 s with 3.0 ms.
   */
  readonly parallelKeyBytes?: number;
  /**
   * Share of the time (0..1] a source may spend running MIGRATE; the migrator pauses for the
   * rest, so clients find the source idle more often. 1: no pause.
   */
  readonly busyShare?: number;
  /** MIGRATE timeout (redis-cli: 60000 ms). */
  readonly timeoutMs?: number;
  readonly onProgress?: (progress: { movedSlots: number; totalSlots: number; movedKeys: number }) => void;
  /** Test seam: called after each stage of each chunk. */
  readonly onStage?: (stage: MigrationStage, slots: readonly number[]) => void;
  /** Aborted: the move stops between MIGRATE batches (no key is lost; slots stay open). */
  readonly signal?: AbortSignal;
  /** Called before each chunk: throws when this run may no longer change the cluster. */
  readonly assertOwner?: () => Promise<void>;
  /** Test seam: GETKEYSINSLOT rounds per chunk before the chunk gives up for this pass. */
  readonly maxKeyRounds?: number;
}

export interface MigrateResult {
  readonly movedSlots: number;
  readonly movedKeys: number;
}

/** The defaults: see MigrateOptions; measured with `npm run bench -- migrate`. */
const MIGRATE_DEFAULTS = Object.freeze({
  batchKeys: 32,
  batchBytes: 8 * 1024 * 1024,
  chunkSlots: 128,
  migrateDepth: 1,
  parallelMoves: 2,
  parallelKeyBytes: 512,
  busyShare: 1,
  timeoutMs: 60_000,
});

/** A move under way: its next chunk, and the telling of other masters about its last one. */
interface MoveProgress {
  readonly move: SlotMove;
  next: number;
  informing: Promise<void>;
}

export async function migrateSlots(
  pool: NodePool,
  moves: readonly SlotMove[],
  masters: readonly NodeRef[],
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const totalSlots = moves.reduce((n, m) => n + m.slots.length, 0);
  const tally = { movedSlots: 0, movedKeys: 0 };
  const report = () => options.onProgress?.({ ...tally, totalSlots });
  const lanes = Math.max(1, options.parallelMoves ?? MIGRATE_DEFAULTS.parallelMoves);
  // The size of the keys decides whether moves run in parallel (parallelKeyBytes): learnt from
  // the listings as the run goes, so the first chunks run in parallel before any is known.
  const listed = { keys: 0, bytes: 0 };
  const keyBytes = options.parallelKeyBytes ?? MIGRATE_DEFAULTS.parallelKeyBytes;
  const lanesNow = () => (listed.keys > 0 && listed.bytes / listed.keys > keyBytes ? 1 : lanes);
  const onListed = (keys: number, bytes: number) => {
    listed.keys += keys;
    listed.bytes += bytes;
  };
  // Moves go a chunk at a time, in turns: a lane takes the next chunk of the first move in line
  // whose nodes are free, and the move goes back to the end of the line. Whole moves per lane
  // left one lane alone with the last move (3 moves on 2 lanes took 2 moves' time, not 1.5).
  const line: MoveProgress[] = moves
    .filter((move) => move.slots.length > 0)
    .map((move) => ({ move, next: 0, informing: Promise.resolve() }));
  const all = [...line];
  const busy = new Set<string>();
  const running = new Set<Promise<void>>();
  let failure: unknown;
  while ((line.length > 0 || running.size > 0) && failure === undefined) {
    const index = line.findIndex((p) => !busy.has(p.move.source.id) && !busy.has(p.move.target.id));
    if (index < 0 || running.size >= lanesNow()) {
      await Promise.race(running);
      continue;
    }
    const [progress] = line.splice(index, 1) as [MoveProgress];
    const { source, target } = progress.move;
    busy.add(source.id);
    busy.add(target.id);
    const task: Promise<void> = runChunk(pool, progress, masters, { ...options, onListed }, tally, report)
      .then(() => {
        if (progress.next < progress.move.slots.length) line.push(progress);
      })
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => {
        busy.delete(source.id);
        busy.delete(target.id);
        running.delete(task);
      });
    running.add(task);
  }
  await Promise.all(running);
  await Promise.all(all.map((p) => p.informing));
  if (failure !== undefined) throw failure;
  return tally;
}

async function runChunk(
  pool: NodePool,
  progress: MoveProgress,
  masters: readonly NodeRef[],
  options: MigrateOptions & { readonly onListed: (keys: number, bytes: number) => void },
  tally: { movedSlots: number; movedKeys: number },
  report: () => void,
): Promise<void> {
  const { move } = progress;
  const chunk = Math.max(1, options.chunkSlots ?? MIGRATE_DEFAULTS.chunkSlots);
  options.signal?.throwIfAborted();
  await options.assertOwner?.();
  const slots = move.slots.slice(progress.next, progress.next + chunk);
  // Not `tally.movedKeys += await ...`: that reads the tally before the await, and a parallel
  // move's chunk finishing meanwhile would be lost from the count.
  const moved = await moveChunk(pool, move.source, move.target, slots, options);
  tally.movedKeys += moved;
  progress.next += slots.length;
  // Telling the other masters is off the critical path: at most one chunk's worth per move.
  await progress.informing;
  progress.informing = informOthers(pool, move, slots, masters, options);
  tally.movedSlots += slots.length;
  report();
}

/** Stage 6: SETSLOT NODE on every other master (saves clients a redirect; gossip does it anyway). */
async function informOthers(
  pool: NodePool,
  move: SlotMove,
  slots: readonly number[],
  masters: readonly NodeRef[],
  options: MigrateOptions,
): Promise<void> {
  await Promise.all(
    masters
      .filter((m) => m.id !== move.source.id && m.id !== move.target.id)
      .map(async (m) => {
        try {
          await pipeline(
            pool,
            m.address,
            'SETSLOT NODE',
            slots.map((s) => ['CLUSTER', 'SETSLOT', s, 'NODE', move.target.id]),
          );
        } catch {
          /* an unreachable master learns the owner by gossip */
        }
      }),
  );
  options.onStage?.('others', slots);
}

async function moveChunk(
  pool: NodePool,
  source: NodeRef,
  target: NodeRef,
  slots: readonly number[],
  options: MigrateOptions & { readonly onListed: (keys: number, bytes: number) => void },
): Promise<number> {
  const stage = (s: MigrationStage) => options.onStage?.(s, slots);
  // 1: IMPORTING on the target ("already the owner" = a previous run got past stage 4)
  const targetOwns = new Set<number>();
  const imp = await pipeline(
    pool,
    target.address,
    'SETSLOT IMPORTING',
    slots.map((s) => ['CLUSTER', 'SETSLOT', s, 'IMPORTING', source.id]),
  );
  imp.forEach(([e], i) => {
    if (!e) return;
    if (/already the owner/i.test(e.message)) targetOwns.add(slots[i] as number);
    else throw new ClusterCommandError('SETSLOT IMPORTING', nodeName(target.address), e.message);
  });
  stage('importing');
  // 2: MIGRATING on the source ("not the owner" is fine only when the target owns the slot)
  const mig = await pipeline(
    pool,
    source.address,
    'SETSLOT MIGRATING',
    slots.map((s) => ['CLUSTER', 'SETSLOT', s, 'MIGRATING', target.id]),
  );
  mig.forEach(([e], i) => {
    if (!e) return;
    const slot = slots[i] as number;
    if (/not the owner/i.test(e.message) && targetOwns.has(slot)) return;
    if (/not the owner/i.test(e.message))
      throw new StaleObservationError(
        `slot ${slot} is owned by neither ${nodeName(source.address)} nor ${nodeName(target.address)}`,
      );
    throw new ClusterCommandError('SETSLOT MIGRATING', nodeName(source.address), e.message);
  });
  stage('migrating');
  // 3: keys, in bounded pipelined batches, until the source has none left in these slots
  const moved = await moveKeys(pool, source, target, slots, {
    batchKeys: options.batchKeys ?? MIGRATE_DEFAULTS.batchKeys,
    batchBytes: options.batchBytes ?? MIGRATE_DEFAULTS.batchBytes,
    migrateDepth: options.migrateDepth ?? MIGRATE_DEFAULTS.migrateDepth,
    timeoutMs: options.timeoutMs ?? MIGRATE_DEFAULTS.timeoutMs,
    busyShare: options.busyShare ?? MIGRATE_DEFAULTS.busyShare,
    ...(options.maxKeyRounds !== undefined ? { maxRounds: options.maxKeyRounds } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onListed: options.onListed,
  });
  stage('keys');
  // A slot changes owner only once its source holds no key in it: a key left there would be
  // lost by SETSLOT NODE. No key can appear meanwhile: a MIGRATING source sends clients of
  // keys it lacks to the target (ASK).
  await expectEmpty(pool, source, slots);
  // 4: the target owns the slots first, 5: then the source, 6: then every other master
  const onTarget = await pipeline(
    pool,
    target.address,
    'SETSLOT NODE',
    slots.map((s) => ['CLUSTER', 'SETSLOT', s, 'NODE', target.id]),
  );
  for (const [e] of onTarget)
    if (e) throw new ClusterCommandError('SETSLOT NODE (target)', nodeName(target.address), e.message);
  stage('target');
  const onSource = await pipeline(
    pool,
    source.address,
    'SETSLOT NODE',
    slots.map((s) => ['CLUSTER', 'SETSLOT', s, 'NODE', target.id]),
  );
  for (const [e] of onSource)
    if (e && !/only with masters/i.test(e.message))
      throw new ClusterCommandError('SETSLOT NODE (source)', nodeName(source.address), e.message);
  stage('source');
  return moved;
}

async function expectEmpty(pool: NodePool, source: NodeRef, slots: readonly number[]): Promise<void> {
  const counts = await pipeline(
    pool,
    source.address,
    'COUNTKEYSINSLOT',
    slots.map((s) => ['CLUSTER', 'COUNTKEYSINSLOT', s]),
  );
  const left: Record<number, number> = {};
  counts.forEach(([e, n], i) => {
    if (e) throw new ClusterCommandError('COUNTKEYSINSLOT', nodeName(source.address), e.message);
    if (Number(n) > 0) left[slots[i] as number] = Number(n);
  });
  if (Object.keys(left).length > 0) throw new SlotNotEmptyError(nodeName(source.address), left);
}
