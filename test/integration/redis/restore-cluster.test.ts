import { expect } from 'chai';
import { Redis } from 'ioredis';
import { ClusterHarness } from '../cluster/cluster-harness.ts';
import { converge } from '../../support/converge.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { fetchSnapshot } from '../../../shared/io/redis/snapshot.ts';
import { readRdb, type RdbRecord } from '../../../shared/core/rdb/read-rdb.ts';
import { restoreRecords, type RestoreTarget } from '../../../shared/io/redis/restore-keys.ts';
import { restoreFunctions } from '../../../shared/io/redis/restore-functions.ts';
import { keySlot } from '../../../shared/core/cluster/slots.ts';
import { ClusterCommandError } from '../../../shared/core/cluster/errors.ts';
import { TerminalError } from '../../../shared/core/outcome.ts';
import type { RedisServer } from '../../support/redis-server.ts';
import { fillDataset, keyState } from './dataset.ts';
import { DEBUG_ARGS, Servers } from './shard.ts';
import { bulkLoad } from '../cluster/client-load.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { myselfOf } from '../../../shared/core/cluster/topology.ts';
import { waitFor } from '../../support/wait-for.ts';

const LIBRARY = "#!lua name=backuplib\nredis.register_function('backup_hello', function() return 'hi' end)";

interface Master {
  readonly id: string;
  readonly client: Redis;
  readonly slots: [number, number][];
}

describe('redis snapshot: restore into a cluster', function () {
  this.timeout(120_000);
  const servers = new Servers();
  let harness: ClusterHarness | undefined;
  let pool: NodePool | undefined;
  afterEach(async () => {
    await pool?.close();
    await servers.stop();
    await harness?.stopAll();
  });

  /** The cluster's masters with the slots each serves, from CLUSTER SHARDS-free CLUSTER SLOTS. */
  async function masters(seed: Redis): Promise<Master[]> {
    const slots = (await seed.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][];
    const byId = new Map<string, Master>();
    for (const [start, end, [host, port, id]] of slots) {
      const m = byId.get(id) ?? { id, client: servers.client({ host, port }), slots: [] };
      m.slots.push([start, end]);
      byId.set(id, m);
    }
    return [...byId.values()];
  }
  const ownerOf = (all: Master[], key: string) => {
    const slot = keySlot(key);
    const owner = all.find((m) => m.slots.some(([a, b]) => slot >= a && slot <= b));
    if (!owner) throw new Error(`no owner for slot ${slot}`);
    return owner;
  };

  it('restores one shard into 3 masters; a re-run keeps what is there and follows ASK', async () => {
    // 1: a backup of one shard, from its replica.
    const { master, replica } = await servers.shard(['--repl-diskless-sync-delay', '0'], async (r) => {
      await fillDataset(r);
      await r.mset('{moving}:1', 'a', '{moving}:2', 'b');
      await r.call('FUNCTION', 'LOAD', LIBRARY);
    });
    const source = servers.client(master);
    const keys = (await source.keys('*')).sort();
    const snapshot = async () => readRdb((await fetchSnapshot({ host: replica.host, port: replica.port })).stream);

    // 2: a new cluster of 3 masters.
    harness = new ClusterHarness({ suite: 61, args: DEBUG_ARGS });
    await harness.addPods(3);
    pool = new NodePool();
    await converge(pool, harness.desired(3, 0));
    const seed = harness.pods[0]!.placement.address;
    const target: RestoreTarget = { pool, seed };
    let all = await masters(servers.client({ host: seed.ip, port: seed.port }));
    expect(all).to.have.length(3);

    // 3: restore, an hour and a bit later as far as expiry goes: ttl:soon (1 h) is skipped.
    const later = () => Date.now() + 4_000_000;
    const small = { batchKeys: 7, batchBytes: 64 * 1024, now: later };
    // The slot of str:int changes owner once the restore has read the owners: MOVED, then
    // the owners are read again.
    const moved = keySlot('str:int');
    const formerOwner = ownerOf(all, 'str:int');
    const newOwner = all.find((m) => m !== formerOwner)!;
    async function* movingASlot(records: AsyncIterable<RdbRecord>) {
      for (const m of [newOwner, formerOwner, ...all.filter((m) => m !== newOwner && m !== formerOwner)])
        await m.client.call('CLUSTER', 'SETSLOT', moved, 'NODE', newOwner.id);
      yield* records;
    }
    const firstSnapshot = await snapshot();
    const first = await restoreRecords(target, movingASlot(firstSnapshot), small);
    all = await masters(servers.client({ host: seed.ip, port: seed.port }));
    expect(ownerOf(all, 'str:int').id).to.equal(newOwner.id);
    expect(first).to.deep.equal({ restored: keys.length - 1, skippedExisting: 0, skippedExpired: 1 });
    // Functions: on every master, once.
    const functions = firstSnapshot.info.functions;
    expect(await restoreFunctions(target, functions)).to.deep.equal({ loaded: 3, skippedExisting: 0 });
    expect(await restoreFunctions(target, functions)).to.deep.equal({ loaded: 0, skippedExisting: 3 });
    for (const m of all) expect(await m.client.call('FCALL', 'backup_hello', 0)).to.equal('hi');
    for (const key of keys.filter((k) => k !== 'ttl:soon')) {
      expect(await keyState(ownerOf(all, key).client, key), key).to.equal(await keyState(source, key));
    }
    expect(await ownerOf(all, 'ttl:soon').client.exists('ttl:soon')).to.equal(0);
    const perMaster = await Promise.all(all.map((m) => m.client.dbsize()));
    expect(perMaster.every((n) => n > 0)).to.equal(true);

    // 4: a client writes a key; two keys of a slot are lost while the slot moves from A to B,
    // and a client writes one of them again on B.
    await ownerOf(all, 'str:small').client.set('str:small', 'written since');
    const slot = keySlot('{moving}');
    const from = ownerOf(all, '{moving}');
    const to = all.find((m) => m !== from)!;
    await from.client.del('{moving}:1', '{moving}:2');
    await to.client.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.id);
    await from.client.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.id);
    await to.client.pipeline().asking().set('{moving}:2', 'written on B').exec();

    // 5: the re-run writes only the lost key, on B through ASKING, and leaves the clients' writes.
    const again = await restoreRecords(target, await snapshot(), small);
    expect(again).to.deep.equal({ restored: 1, skippedExisting: keys.length - 2, skippedExpired: 1 });
    expect(await ownerOf(all, 'str:small').client.get('str:small')).to.equal('written since');
    const onB = await to.client.pipeline().asking().get('{moving}:1').asking().get('{moving}:2').exec();
    expect(onB?.map(([, v]) => v)).to.deep.equal(['OK', 'a', 'OK', 'written on B']);
  });

  it('stops at a payload the node refuses, and at keys of a database a cluster lacks', async () => {
    const node = await servers.start(['--repl-diskless-sync-delay', '0']);
    pool = new NodePool();
    const target = { pool, seed: { ip: node.host, port: node.port } };
    await servers.client(node).set('k', 'v');
    const good = (await readAll(node)).records[0]!;
    await servers.client(node).del('k');
    async function* of(...records: RdbRecord[]) {
      yield* records;
    }
    const bad = { db: 0, key: Buffer.from('bad'), payload: Buffer.from('not a DUMP payload') };
    // One key per batch: the refusal comes from a write running while the next batch is read.
    const refused = await restoreRecords(target, of(good, bad, { ...good, key: Buffer.from('k2') }), {
      batchKeys: 1,
    }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ClusterCommandError);
    expect((refused as Error).message).to.match(/payload/i);
    const otherDb = await restoreRecords(target, of({ ...good, db: 1 })).catch((e: unknown) => e);
    expect(otherDb).to.be.instanceOf(TerminalError);
  });

  /** The records of a node's snapshot. */
  async function readAll(node: RedisServer) {
    const reader = readRdb((await fetchSnapshot({ host: node.host, port: node.port })).stream);
    const records: RdbRecord[] = [];
    for await (const r of reader) records.push(r);
    return { records, info: reader.info };
  }

  it('restores a 3-shard cluster into 2 masters from one snapshot per shard, each from a replica', async () => {
    // 1: a 3x1 cluster with keys on every shard, replicas in sync.
    harness = new ClusterHarness({ suite: 62 });
    await harness.addPods(6);
    pool = new NodePool();
    const desired = harness.desired(3, 1);
    await converge(pool, desired);
    await bulkLoad(await observe(desired.pods, pool), 'bk', 3000);
    const replicas = await waitFor(
      async () => {
        const views = (await observe(desired.pods, pool!)).views;
        const keysOf = new Map(views.map((v) => [v.id, v.keys]));
        const replicas = views.filter((v) => v.replication.role === 'replica');
        const synced = replicas.every((r) => r.keys === keysOf.get(myselfOf(r).masterId ?? ''));
        return replicas.length === 3 && synced ? replicas : undefined;
      },
      { what: 'three replicas in sync with their masters' },
    );

    // 2: a new cluster of 2 masters, and each shard's snapshot restored into it.
    const targetHarness = new ClusterHarness({ suite: 63 });
    const targetPool = new NodePool();
    try {
      await targetHarness.addPods(2);
      await converge(targetPool, targetHarness.desired(2, 0));
      const target = { pool: targetPool, seed: targetHarness.pods[0]!.placement.address };
      let restored = 0;
      for (const replica of replicas) {
        const snapshot = await fetchSnapshot({ host: replica.address.ip, port: replica.address.port });
        restored += (await restoreRecords(target, readRdb(snapshot.stream))).restored;
      }
      expect(restored).to.equal(3000);
      const keys = await Promise.all(
        targetHarness.pods.map((p) => servers.client({ host: p.placement.address.ip, port: 6379 }).keys('bk:*')),
      );
      expect(keys.every((k) => k.length > 0)).to.equal(true);
      expect(keys.flat().sort()).to.deep.equal(Array.from({ length: 3000 }, (_, i) => `bk:${i}`).sort());
    } finally {
      await targetPool.close();
      await targetHarness.stopAll();
    }
  });
});
