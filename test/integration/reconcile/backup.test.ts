// Backups and restores through the reconcile of their clusters, against a real S3 server
// (SeaweedFS): every shard's snapshot stored with its slots, keys and checksum, a manifest that
// says the same, and failures (refused credentials, a missing bucket or Secret) reported as
// Failed with a message that names what failed, carries no secret, and one Warning Event; a
// new cluster of another master count created from the backup, with every key, value and TTL,
// Ready only once restored; a corrupted snapshot refused before any key is written.
import { expect } from 'chai';
import { crc64, crc64Hex } from '../../../shared/core/rdb/crc64.ts';
import { parseManifest } from '../../../shared/core/backup/manifest.ts';
import { parseSlots } from '../../../shared/core/backup/layout.ts';
import { countSlots } from '../../../shared/core/cluster/slots.ts';
import type { ObjectStore } from '../../../shared/io/object-store.ts';
import { startS3Server, type S3Server } from '../../support/s3-server.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { observe } from '../../../shared/io/redis/observe.ts';
import { myselfOf } from '../../../shared/core/cluster/topology.ts';
import { driver, isReady, type Driver } from './harness.ts';
import { clusterPassword, podPlacements } from './pods.ts';
import {
  apply,
  clusterClient,
  createBackup,
  getBackup,
  readyLoadedCluster,
  s3Secret,
  storageOf,
  storeOf,
  untilFinished,
  type Loaded,
} from './backup-fixture.ts';

// KNREDIS_BACKUP_KEYS=200000 (and KNREDIS_TEST_LOG=info for the per-shard lines) for figures; few keep it quick.
const KEYS = Number(process.env.KNREDIS_BACKUP_KEYS ?? 5_000);

describe('reconcile: backups to an S3 object store (on the local Kubernetes)', function () {
  this.timeout(600_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;
  let s3: S3Server;
  let store: ObjectStore;
  let loaded: Loaded;

  before(async () => {
    s3 = await startS3Server();
    store = storeOf(s3);
    api = await installApi(`knredis-backup-${process.pid}`);
    drive = driver(api);
    ns = await api.namespace(`rc-backup-${process.pid}`);
    await s3Secret(api, ns, 's3-keys', { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey });
    loaded = await readyLoadedCluster(api, drive, ns, 'src', KEYS);
  });
  after(async () => {
    await drive?.remove(ns, 'src').catch(() => undefined);
    await api?.stop();
    store?.close();
    await s3?.stop();
  });

  const events = async (reason: string) =>
    (
      JSON.parse(await api.env.kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as {
        items: { reason: string; type: string; message: string; involvedObject: { kind: string; name: string } }[];
      }
    ).items.filter((e) => e.reason === reason);

  it('stores every shard of a loaded 3-master cluster, and a manifest with the slots, keys and Redis version', async () => {
    await createBackup(api, ns, 'src-first', { clusterName: 'src', storage: storageOf(s3, 's3-keys') });
    const backup = await untilFinished(api, drive, ns, 'src', 'src-first');
    expect(backup.status?.phase, backup.status?.message).to.equal('Completed');
    const shards = backup.status?.shards ?? [];
    expect(shards).to.have.length(3);
    expect(shards.reduce((sum, s) => sum + s.keys, 0)).to.equal(loaded.keys);
    expect(shards.reduce((sum, s) => sum + countSlots(parseSlots(s.slots) ?? []), 0)).to.equal(16384);
    expect(shards[0]?.slots.startsWith('0-')).to.equal(true);
    const dir = `${ns}/src/src-first/`;
    expect((await store.list(dir)).map((o) => o.key)).to.deep.equal([
      `${dir}manifest.json`,
      `${dir}shard-0.rdb`,
      `${dir}shard-1.rdb`,
      `${dir}shard-2.rdb`,
    ]);
    for (const s of shards) {
      const chunks: Buffer[] = [];
      for await (const chunk of await store.get(s.object)) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      expect(bytes.length, s.object).to.equal(s.bytes);
      expect(crc64Hex(crc64(bytes)), s.object).to.equal(s.crc64);
    }
    const manifest = parseManifest(await store.getJson(`${dir}manifest.json`));
    if ('error' in manifest) throw new Error(manifest.error);
    expect(manifest.shards).to.deep.equal(shards);
    expect(manifest).to.include({ namespace: ns, cluster: 'src', backup: 'src-first' });
    expect(manifest.redisVersion).to.match(/^7\.\d+\.\d+/);
    expect(await events('BackupCompleted')).to.have.length(1);
  });

  const failures: [string, () => Promise<object>, RegExp][] = [
    [
      'refused credentials',
      async () => {
        await s3Secret(api, ns, 's3-wrong', { accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret-1234' });
        return storageOf(s3, 's3-wrong');
      },
      /^object store: list test-\w+\/rc-backup-\d+\/src\/src-refused-credentials\/: access denied \(SignatureDoesNotMatch, HTTP 403\)$/,
    ],
    [
      'a missing bucket',
      async () => storageOf(s3, 's3-keys', 'no-such-bucket'),
      /^object store: list no-such-bucket\/.*: the bucket does not exist \(NoSuchBucket, HTTP 404\)$/,
    ],
    [
      'a missing Secret',
      async () => storageOf(s3, 'nowhere'),
      /^Secret nowhere \(storage.s3.credentialsSecretRef\) was not found$/,
    ],
  ];
  for (const [what, storage, message] of failures)
    it(`fails a backup on ${what}, with a clean message and one Warning Event`, async () => {
      const name = `src-${what.replace(/\W+/g, '-').toLowerCase()}`;
      await createBackup(api, ns, name, { clusterName: 'src', storage: await storage() });
      const backup = await untilFinished(api, drive, ns, 'src', name);
      expect(backup.status?.phase).to.equal('Failed');
      expect(backup.status?.message).to.match(message);
      expect(backup.status?.completedAt).to.be.a('string');
      const warnings = (await events('BackupFailed')).filter((e) => e.involvedObject.name === name);
      expect(warnings.map((e) => e.message)).to.deep.equal([backup.status?.message]);
      const everything = [JSON.stringify(backup), JSON.stringify(warnings), drive.logLines.join('')].join('\n');
      for (const secret of [s3.secretAccessKey, 'not-the-secret-1234', loaded.password])
        expect(everything.includes(secret), 'a secret in status, Event or log').to.equal(false);
      // nothing half-written is left to be taken for a backup
      expect(await store.list(`${ns}/src/${name}/`)).to.deep.equal([]);
    });

  it('holds slot moves while a backup runs: a migration cut short stays open until the backup completes, then finishes', async () => {
    // half a slot moved by hand, as a worker that died in its first migrating pass leaves it:
    // the status still says Ready, so the backup starts, and no key may move until it is done
    const pool = new NodePool({ auth: { password: loaded.password } });
    try {
      const pods = (await podPlacements(api, ns)).filter((p) => p.name.startsWith('src-'));
      const masters = (await observe(pods, pool)).views.filter(
        (v) => myselfOf(v).role === 'master' && myselfOf(v).slots.length > 0,
      );
      const [source, target] = [masters[0]!, masters[1]!];
      const [from, to] = [pool.client(source.address), pool.client(target.address)];
      let slot = myselfOf(source).slots[0]!.start;
      while (Number(await from.cluster('COUNTKEYSINSLOT', slot)) < 2) slot++;
      await to.cluster('SETSLOT', slot, 'IMPORTING', source.id);
      await from.cluster('SETSLOT', slot, 'MIGRATING', target.id);
      const [key] = (await from.cluster('GETKEYSINSLOT', slot, 1)) as string[];
      await from.call(
        'MIGRATE',
        target.address.ip,
        target.address.port,
        '',
        0,
        5000,
        'AUTH',
        loaded.password,
        'KEYS',
        key!,
      );
      const isOpen = async () => String(await from.cluster('NODES')).includes(`[${slot}->-${target.id}]`);
      await createBackup(api, ns, 'src-held', { clusterName: 'src', storage: storageOf(s3, 's3-keys') });
      // every pass while the backup runs leaves the slot open; the status says why
      const passesWhileRunning: boolean[] = [];
      const said: string[] = [];
      for (let pass = 0; pass < 50; pass++) {
        await drive.once(`${ns}/src`);
        const phase = (await getBackup(api, ns, 'src-held')).status?.phase;
        if (phase !== 'Running') break;
        passesWhileRunning.push(await isOpen());
        said.push(JSON.stringify((await drive.get(ns, 'src'))?.status?.conditions ?? []));
      }
      const backup = await getBackup(api, ns, 'src-held');
      expect(backup.status?.phase, backup.status?.message).to.equal('Completed');
      expect(passesWhileRunning.length).to.be.greaterThan(0);
      expect(passesWhileRunning.every(Boolean), 'the slot stayed open while the backup ran').to.equal(true);
      expect(said.some((c) => c.includes('slot moves wait: backup src-held is reading the shards'))).to.equal(true);
      expect(backup.status?.shards?.reduce((sum, x) => sum + x.keys, 0)).to.equal(loaded.keys);
      // then the engine finishes the move: the slot closed on the target, every key still there
      await drive.until(`${ns}/src`, 'src Ready again', isReady, 120_000);
      expect(await isOpen()).to.equal(false);
      expect(Number(await to.cluster('COUNTKEYSINSLOT', slot))).to.be.greaterThan(1);
      const sizes = await Promise.all(masters.map((m) => pool.client(m.address).dbsize()));
      expect(sizes.reduce((a, b) => a + Number(b), 0)).to.equal(loaded.keys);
    } finally {
      await pool.close();
    }
  });

  it('fails the unfinished backups of a deleted cluster, with one Warning Event each, instead of leaving them unfinished', async () => {
    await apply(api, {
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name: 'gone', namespace: ns },
      spec: { masters: 3, replicasPerMaster: 0, storage: { reclaim: 'Delete' } },
    });
    await createBackup(api, ns, 'gone-backup', { clusterName: 'gone', storage: storageOf(s3, 's3-keys') });
    // a first pass creates the cluster's children; the backup is not finished (no status, or Pending)
    await drive.once(`${ns}/gone`);
    expect((await getBackup(api, ns, 'gone-backup')).status?.phase ?? 'Pending').to.equal('Pending');
    await drive.remove(ns, 'gone');
    const backup = await getBackup(api, ns, 'gone-backup');
    expect(backup.status).to.deep.include({
      phase: 'Failed',
      message: 'the RedisCluster was deleted before the backup completed',
    });
    const warnings = (await events('BackupFailed')).filter((e) => e.involvedObject.name === 'gone-backup');
    expect(warnings).to.have.length(1);
  });

  it('backs up on spec.backup.schedule into owned backups named by the due minute, keeping only `keep` Completed', async () => {
    const storage = storageOf(s3, 's3-keys');
    const patch = (type: string, body: string) =>
      api.env.kubectl(['patch', 'rediscluster', 'src', '-n', ns, '--type', type, '-p', body]);
    await patch('merge', JSON.stringify({ spec: { backup: { schedule: '* * * * *', keep: 1, storage } } }));
    const scheduledNames = async () =>
      (
        JSON.parse(await api.env.kubectl(['get', 'rcb', '-n', ns, '-o', 'json'])) as {
          items: { metadata: { name: string; ownerReferences?: { name: string }[] }; status?: { phase?: string } }[];
        }
      ).items
        .filter((b) => b.metadata.ownerReferences?.some((o) => o.name === 'src'))
        .map((b) => ({ name: b.metadata.name, phase: b.status?.phase }));
    // passes until the schedule has made a backup that completed, then until a second one did
    const completed: string[] = [];
    const deadline = Date.now() + 400_000;
    while (completed.length < 2) {
      if (Date.now() > deadline) throw new Error(`scheduled backups: ${JSON.stringify(await scheduledNames())}`);
      await drive.once(`${ns}/src`).catch(() => undefined);
      for (const b of await scheduledNames())
        if (b.phase === 'Completed' && !completed.includes(b.name)) completed.push(b.name);
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const name of completed) expect(name).to.match(/^src-\d{12}$/);
    // the older one goes, with its files; the newer one stays
    const [older, newer] = completed.sort();
    const left = await waitForNames(scheduledNames, (names) => !names.includes(older!));
    expect(left).to.include(newer);
    expect(await store.list(`${ns}/src/${older}/`)).to.deep.equal([]);
    expect(await store.list(`${ns}/src/${newer}/`)).to.have.length(4);
    expect((await events('BackupExpired')).map((e) => e.message)).to.include(
      `deleted RedisClusterBackup ${older} and its files (keep 1)`,
    );
    await patch('json', '[{"op":"remove","path":"/spec/backup"}]');
    await drive.once(`${ns}/src`);
  });

  async function waitForNames(
    list: () => Promise<{ name: string }[]>,
    ok: (names: string[]) => boolean,
  ): Promise<string[]> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const names = (await list()).map((b) => b.name);
      if (ok(names)) return names;
      if (Date.now() > deadline) throw new Error(`backups: ${names.join(', ')}`);
      await drive.once(`${ns}/src`).catch(() => undefined);
    }
  }

  const restoredCluster = (name: string, masters: number, backupName: string) =>
    apply(api, {
      apiVersion: 'cache.redis.io/v1beta1',
      kind: 'RedisCluster',
      metadata: { name, namespace: ns },
      spec: { masters, replicasPerMaster: 0, storage: { reclaim: 'Delete' }, restore: { backupName } },
    });
  const dbsizes = async (name: string) => {
    const password = await clusterPassword(api, ns, name);
    const pool = new NodePool({ auth: { password } });
    try {
      const pods = (await podPlacements(api, ns)).filter((p) => p.name.startsWith(`${name}-`));
      return await Promise.all(pods.map(async (p) => Number(await pool.client(p.address).dbsize())));
    } finally {
      await pool.close();
    }
  };

  it('restores the 3-master backup into 4 masters: every key with its value and TTL, Ready only after', async () => {
    await restoredCluster('dst', 4, 'src-first');
    const readyBeforeRestored: string[] = [];
    const rc = await drive.until(
      `${ns}/dst`,
      'dst Ready',
      (x) => {
        if (isReady(x) && x?.status?.restore?.phase !== 'Completed')
          readyBeforeRestored.push(JSON.stringify(x?.status));
        return isReady(x);
      },
      400_000,
    );
    expect(readyBeforeRestored).to.deep.equal([]);
    expect(rc?.status?.restore).to.deep.include({
      backupName: 'src-first',
      phase: 'Completed',
      shards: 3,
      shardsRestored: 3,
      keys: loaded.keys,
    });
    const sizes = await dbsizes('dst');
    expect(sizes).to.have.length(4);
    expect(
      sizes.every((n) => n > 0),
      `keys on every master: ${sizes}`,
    ).to.equal(true);
    expect(sizes.reduce((a, b) => a + b, 0)).to.equal(loaded.keys);
    const [source, target] = [
      await clusterClient(api, ns, loaded.password, 'src'),
      await clusterClient(api, ns, await clusterPassword(api, ns, 'dst'), 'dst'),
    ];
    try {
      for (let i = 0; i < KEYS; i += 250) {
        const keys = Array.from({ length: Math.min(250, KEYS - i) }, (_, j) => `k:${i + j}`);
        const [want, got] = await Promise.all([source, target].map((c) => Promise.all(keys.map((k) => c.get(k)))));
        expect(got, `k:${i}..`).to.deep.equal(want);
      }
      for (const key of loaded.withTtl) {
        const [want, got] = await Promise.all([source.pexpiretime(key), target.pexpiretime(key)]);
        expect(got, key).to.equal(want);
        expect(got).to.be.greaterThan(Date.now());
      }
    } finally {
      source.disconnect();
      target.disconnect();
    }
    expect(await events('RestoreCompleted')).to.have.length(1);
    await drive.remove(ns, 'dst');
  });

  it('refuses a backup whose snapshot was corrupted in the bucket: RestoreFailed, never Ready, no key written', async () => {
    await createBackup(api, ns, 'src-second', { clusterName: 'src', storage: storageOf(s3, 's3-keys') });
    const backup = await untilFinished(api, drive, ns, 'src', 'src-second');
    expect(backup.status?.phase, backup.status?.message).to.equal('Completed');
    const object = backup.status!.shards![1]!.object;
    const chunks: Buffer[] = [];
    for await (const chunk of await store.get(object)) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    await store.put(object, bytes);

    await restoredCluster('bad', 3, 'src-second');
    const rc = await drive.until(
      `${ns}/bad`,
      'bad restore Failed',
      (x) => x?.status?.restore?.phase === 'Failed',
      400_000,
    );
    const ready = rc?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).to.include({ status: 'False', reason: 'RestoreFailed' });
    expect(ready?.message).to.match(/shard 1 \(.*shard-1.rdb\) is corrupt: its CRC-64 differs from the manifest/);
    expect(rc?.status?.phase).to.equal('Creating');
    expect((await events('RestoreFailed')).map((e) => e.involvedObject.name)).to.deep.equal(['bad']);
    expect(await dbsizes('bad')).to.deep.equal([0, 0, 0]);
    await drive.remove(ns, 'bad');
  });
});
