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
// source, one move runs at a time, and the source is left idle part of the time (busyShare);
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
   * Moves (source/target pairs with no node in common) run at once. More is faster only when
   * the nodes have CPUs of their own; on shared cores it was slower and starved clients.
   */
  readonly parallelMoves?: number;
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
  parallelMoves: 1,
  busyShare: 1,
  timeoutMs: 60_000,
});

export async function migrateSlots(
  pool: NodePool,
  moves: readonly SlotMove[],
  masters: readonly NodeRef[],
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const totalSlots = moves.reduce((n, m) => n + m.slots.length, 0);
  const tally = { movedSlots: 0, movedKeys: 0 };
  const report = () => options.onProgress?.({ ...tally, totalSlots });
  // Run moves whose nodes are disjoint in parallel; a move waits while one of its nodes is busy.
  const busy = new Set<string>();
  const queue = [...moves];
  const running = new Set<Promise<void>>();
  let failure: unknown;
  while ((queue.length > 0 || running.size > 0) && failure === undefined) {
    const index = queue.findIndex((m) => !busy.has(m.source.id) && !busy.has(m.target.id));
    if (index < 0 || running.size >= Math.max(1, options.parallelMoves ?? MIGRATE_DEFAULTS.parallelMoves)) {
      await Promise.race(running);
      continue;
    }
    const [move] = queue.splice(index, 1) as [SlotMove];
    busy.add(move.source.id);
    busy.add(move.target.id);
    const task: Promise<void> = runMove(pool, move, masters, options, tally, report)
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => {
        busy.delete(move.source.id);
        busy.delete(move.target.id);
        running.delete(task);
      });
    running.add(task);
  }
  await Promise.all(running);
  if (failure !== undefined) throw failure;
  return tally;
}

async function runMove(
  pool: NodePool,
  move: SlotMove,
  masters: readonly NodeRef[],
  options: MigrateOptions,
  tally: { movedSlots: number; movedKeys: number },
  report: () => void,
): Promise<void> {
  const chunk = Math.max(1, options.chunkSlots ?? MIGRATE_DEFAULTS.chunkSlots);
  // Telling the other masters is off the critical path: at most one chunk's worth in flight.
  let informing: Promise<void> = Promise.resolve();
  for (let i = 0; i < move.slots.length; i += chunk) {
    options.signal?.throwIfAborted();
    await options.assertOwner?.();
    const slots = move.slots.slice(i, i + chunk);
    tally.movedKeys += await moveChunk(pool, move.source, move.target, slots, options);
    await informing;
    informing = informOthers(pool, move, slots, masters, options);
    tally.movedSlots += slots.length;
    report();
  }
  await informing;
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
  options: MigrateOptions,
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
