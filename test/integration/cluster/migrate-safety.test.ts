import { expect } from 'chai';
import { Redis } from 'ioredis';
import { ClusterHarness } from './cluster-harness.ts';
import { bulkLoad, ClientLoad } from './client-load.ts';
import { keySlot } from '../../../shared/core/cluster/slots.ts';
import { SlotNotEmptyError } from '../../../shared/core/cluster/errors.ts';
import type { NodeRef } from '../../../shared/core/cluster/steps.ts';
import { myselfOf, type Topology } from '../../../shared/core/cluster/topology.ts';
import { command, NodePool } from '../../../shared/io/redis/connection.ts';
import { converge } from '../../support/converge.ts';
import { migrateSlots } from '../../../shared/io/redis/migrate-slots.ts';
import { observe } from '../../../shared/io/redis/observe.ts';

describe('cluster engine: slot moves never lose a key', function () {
  this.timeout(180_000);
  let harness: ClusterHarness;
  let pool: NodePool;
  const loads: ClientLoad[] = [];
  before(async () => {
    harness = new ClusterHarness({ suite: 41, nodes: 2, zones: 1 });
    await harness.addPods(2);
    pool = new NodePool();
    await converge(pool, harness.desired(2, 0));
  });
  after(async () => {
    for (const load of loads) await load.close();
    await pool?.close();
    await harness?.stopAll();
  });

  const topology = () => observe(harness.desired(2, 0).pods, pool);
  const ref = (t: Topology, id: string): NodeRef => {
    const v = t.views.find((x) => x.id === id) as Topology['views'][number];
    return { id: v.id, address: v.address, pod: v.pod };
  };
  /** The owner of the tag's slot (source) and the other master (target). */
  async function ends(
    tag: string,
  ): Promise<{ slot: number; source: NodeRef; target: NodeRef; masters: NodeRef[]; t: Topology }> {
    const t = await topology();
    const slot = keySlot(tag);
    const owner = t.views.find((v) => myselfOf(v).slots.some((r) => r.start <= slot && slot <= r.end));
    if (!owner) throw new Error(`slot ${slot} has no owner`);
    const other = t.views.find((v) => v.id !== owner.id) as Topology['views'][number];
    return { slot, source: ref(t, owner.id), target: ref(t, other.id), masters: t.views.map((v) => ref(t, v.id)), t };
  }
  const countIn = (node: NodeRef, slot: number) =>
    command<number>(pool, node.address, 'COUNTKEYSINSLOT', ['CLUSTER', 'COUNTKEYSINSLOT', slot]);
  const client = (prefix: string, keys: number) => {
    const load = new ClientLoad([harness.pods[0]!.placement.address], prefix, keys);
    loads.push(load);
    return load;
  };

  it('keeps a slot on its source while the source still holds keys, under writes, and a later pass finishes it', async () => {
    const KEYS = 200;
    const { slot, source, target, masters, t } = await ends('t');
    await bulkLoad(t, '{t}', KEYS);
    const load = client('{t}', KEYS);
    load.start(2);
    const move = [{ source, target, slots: [slot] }];
    // Three rounds of five keys: most keys are still on the source when the rounds run out.
    const first = await migrateSlots(pool, move, masters, { batchKeys: 5, maxKeyRounds: 3 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(first).to.be.instanceOf(SlotNotEmptyError);
    expect(await countIn(source, slot)).to.be.greaterThan(0);
    expect(myselfOf((await topology()).views.find((v) => v.id === source.id)!).migrating).to.deep.include({
      slot,
      to: target.id,
    });
    await migrateSlots(pool, move, masters, { batchKeys: 5 });
    const report = await load.stop();
    expect(report.errors, report.samples.join('; ')).to.equal(0);
    expect(report.ops).to.be.greaterThan(0);
    expect(await load.verify()).to.deep.equal([]);
    expect(await countIn(source, slot)).to.equal(0);
    expect(await countIn(target, slot)).to.be.at.least(KEYS);
  });

  it('finishes a move whose target imports the slot but knows no owner for it (its source was demoted meanwhile)', async () => {
    const { slot, source, target, masters, t } = await ends('u');
    await bulkLoad(t, '{u}', 20);
    await command(pool, target.address, 'SETSLOT', ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id]);
    // An importer skips every claim to the slot, so once it drops the owner it stays unbound.
    await command(pool, target.address, 'DELSLOTS', ['CLUSTER', 'DELSLOTS', slot]);
    await migrateSlots(pool, [{ source, target, slots: [slot] }], masters);
    expect(await countIn(source, slot)).to.equal(0);
    expect(await countIn(target, slot)).to.equal(20);
    const owner = myselfOf((await topology()).views.find((v) => v.id === target.id)!);
    expect(owner.slots.some((r) => r.start <= slot && slot <= r.end)).to.equal(true);
  });

  it("keeps the source's value of a key left on both ends (a timed-out MIGRATE) and finishes the move", async () => {
    const { slot, source, target, masters, t } = await ends('c');
    await bulkLoad(t, '{c}', 20);
    await command(pool, source.address, 'SET', ['SET', '{c}:7', 'fresh']);
    // The target already imports the slot and holds an older copy of {c}:7.
    await command(pool, target.address, 'SETSLOT', ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id]);
    const direct = new Redis({ host: target.address.ip, port: target.address.port });
    try {
      await direct.pipeline().call('ASKING').call('SET', '{c}:7', 'stale').exec();
    } finally {
      direct.disconnect();
    }
    await migrateSlots(pool, [{ source, target, slots: [slot] }], masters);
    const load = client('{c}', 20);
    load.last.set('{c}:7', 'fresh');
    expect(await load.verify()).to.deep.equal([]);
    expect(await countIn(source, slot)).to.equal(0);
  });

  it('cuts MIGRATE batches by bytes as well as keys, so big keys do not hold the source in one long MIGRATE', async () => {
    const { slot, source, target, masters } = await ends('b');
    const big = 'x'.repeat(100_000);
    for (let i = 0; i < 10; i++) await command(pool, source.address, 'SET', ['SET', `{b}:${i}`, big]);
    await command(pool, source.address, 'CONFIG RESETSTAT', ['CONFIG', 'RESETSTAT']);
    // About 100 kB a key: two keys fit in 250 kB, three do not.
    await migrateSlots(pool, [{ source, target, slots: [slot] }], masters, { batchKeys: 32, batchBytes: 250_000 });
    const stats = await command<string>(pool, source.address, 'INFO', ['INFO', 'commandstats']);
    expect(Number(/cmdstat_migrate:calls=(\d+)/.exec(stats)?.[1])).to.equal(5);
    expect(await countIn(target, slot)).to.equal(10);
  });

  it('stops an aborted move between MIGRATE batches with every key on one end, and a rerun finishes it', async () => {
    const KEYS = 1000;
    const { slot, source, target, masters, t } = await ends('a');
    await bulkLoad(t, '{a}', KEYS);
    const move = [{ source, target, slots: [slot] }];
    const controller = new AbortController();
    let settled = false;
    const running = migrateSlots(pool, move, masters, { batchKeys: 10, busyShare: 0.2, signal: controller.signal })
      .then(
        () => undefined,
        (e: unknown) => e,
      )
      .finally(() => {
        settled = true;
      });
    // Abort once a tenth of the keys moved (a condition, polled without pause).
    while (!settled && (await countIn(target, slot)) < KEYS / 10) {
      /* poll */
    }
    controller.abort();
    const stopped = await running;
    expect((stopped as Error | undefined)?.name).to.equal('AbortError');
    const [onSource, onTarget] = [await countIn(source, slot), await countIn(target, slot)];
    expect(onSource).to.be.greaterThan(0);
    expect(onSource + onTarget).to.equal(KEYS);
    const reader = client('{a}', KEYS);
    expect(await reader.verify()).to.deep.equal([]);
    await migrateSlots(pool, move, masters);
    expect(await countIn(target, slot)).to.equal(KEYS);
    expect(await reader.verify()).to.deep.equal([]);
  });

  it('checks ownership before each chunk: a run that lost its key stops before the next chunk', async () => {
    const { source, target, masters } = await ends('o');
    const owned = (await topology()).views.find((v) => v.id === source.id)!;
    const slots = [
      myselfOf(owned).slots[0]!.start,
      myselfOf(owned).slots[0]!.start + 1,
      myselfOf(owned).slots[0]!.start + 2,
    ];
    let checks = 0;
    const lost = new Error('lost the key');
    const assertOwner = async () => {
      if (++checks > 1) throw lost;
    };
    const result = await migrateSlots(pool, [{ source, target, slots }], masters, { chunkSlots: 1, assertOwner }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(result).to.equal(lost);
    const after = myselfOf((await topology()).views.find((v) => v.id === target.id)!).slots;
    const targetOwns = (s: number) => after.some((r) => r.start <= s && s <= r.end);
    expect(slots.map(targetOwns)).to.deep.equal([true, false, false]);
  });
});
