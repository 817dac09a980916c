import { expect } from 'chai';
import { ClusterHarness } from './cluster-harness.ts';
import { keySlot } from '../../../shared/core/cluster/slots.ts';
import type { NodeRef, SlotMove } from '../../../shared/core/cluster/steps.ts';
import { myselfOf, type Topology } from '../../../shared/core/cluster/topology.ts';
import { command, NodePool, pipeline } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { migrateSlots, type MigrationStage } from '../../../shared/io/redis/migrate-slots.ts';
import { observe } from '../../../shared/io/redis/observe.ts';

/** Keys per moved slot, and slots per move. */
const KEYS_PER_SLOT = 8;
const SLOTS = 48;

describe('cluster engine: moves run in parallel only while the keys are small', function () {
  this.timeout(180_000);
  let harness: ClusterHarness;
  let pool: NodePool;
  before(async () => {
    harness = new ClusterHarness({ suite: 42, nodes: 4, zones: 1 });
    await harness.addPods(4);
    pool = new NodePool();
    await converge(pool, harness.desired(4, 0));
  });
  after(async () => {
    await pool?.close();
    await harness?.stopAll();
  });

  const ref = (t: Topology, i: number): NodeRef => {
    const v = t.views[i] as Topology['views'][number];
    return { id: v.id, address: v.address, pod: v.pod };
  };
  const ownedSlots = (t: Topology, i: number) =>
    myselfOf(t.views[i] as Topology['views'][number]).slots.flatMap((r) =>
      Array.from({ length: r.end - r.start + 1 }, (_, k) => r.start + k),
    );

  /** Names whose hash slot is `slot` (hash tags found by search; cached over the suite). */
  const tagOf = new Map<number, string>();
  const tagFor = (slot: number) => {
    for (let i = tagOf.size; !tagOf.has(slot); i++) {
      const s = keySlot(`t${i}`);
      if (!tagOf.has(s)) tagOf.set(s, `t${i}`);
    }
    return tagOf.get(slot) as string;
  };

  /** Two moves with no node in common, of `SLOTS` slots each, from `offset` into each source's slots, filled. */
  async function fill(offset: number, valueBytes: number): Promise<{ moves: SlotMove[]; masters: NodeRef[] }> {
    const t = await observe(harness.desired(4, 0).pods, pool);
    const value = 'x'.repeat(valueBytes);
    const moves = [
      [0, 1],
      [2, 3],
    ].map(([from, to]) => ({
      source: ref(t, from as number),
      target: ref(t, to as number),
      slots: ownedSlots(t, from as number).slice(offset, offset + SLOTS),
    }));
    for (const move of moves) {
      const replies = await pipeline(
        pool,
        move.source.address,
        'SET',
        move.slots.flatMap((slot) =>
          Array.from({ length: KEYS_PER_SLOT }, (_, k) => ['SET', `{${tagFor(slot)}}:${k}`, value]),
        ),
      );
      const failed = replies.find(([e]) => e);
      if (failed) throw failed[0] as Error;
    }
    return { moves, masters: t.views.map((_, i) => ref(t, i)) };
  }

  /**
   * Runs the moves a few slots a chunk, and returns, for every chunk begun after the first
   * listing told the keys' size, how many chunks were under way with it (itself included).
   */
  async function overlapAfterSizesKnown(moves: SlotMove[], masters: NodeRef[]): Promise<number[]> {
    const active = new Set<string>();
    let sized = false;
    const overlaps: number[] = [];
    const onStage = (stage: MigrationStage, slots: readonly number[]) => {
      const chunk = slots.join(',');
      if (stage === 'importing') {
        active.add(chunk);
        if (sized) overlaps.push(active.size);
      }
      if (stage === 'keys') sized = true;
      if (stage === 'source') active.delete(chunk);
    };
    const result = await migrateSlots(pool, moves, masters, { chunkSlots: 4, parallelMoves: 2, onStage });
    expect(result.movedKeys).to.equal(2 * SLOTS * KEYS_PER_SLOT);
    for (const move of moves)
      for (const slot of move.slots)
        expect(
          await command<number>(pool, move.target.address, 'COUNTKEYSINSLOT', ['CLUSTER', 'COUNTKEYSINSLOT', slot]),
        ).to.equal(KEYS_PER_SLOT);
    return overlaps;
  }

  it('runs two moves at once with small keys', async () => {
    const { moves, masters } = await fill(0, 16);
    const overlaps = await overlapAfterSizesKnown(moves, masters);
    expect(overlaps.length).to.be.greaterThan(10);
    expect(Math.max(...overlaps)).to.equal(2);
  });

  it('runs one move at a time once the keys listed average over 512 bytes', async () => {
    const { moves, masters } = await fill(SLOTS, 2_048);
    const overlaps = await overlapAfterSizesKnown(moves, masters);
    expect(overlaps.length).to.be.greaterThan(10);
    // The first chunk of each move began before any size was known; every later one alone.
    expect(overlaps.filter((n) => n > 1).length, `chunks under way together: ${overlaps.join(' ')}`).to.be.at.most(1);
  });
});
