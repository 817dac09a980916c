// Backups through the reconcile of their cluster, against a real S3 server (SeaweedFS): every
// shard's snapshot stored with its slots, keys and checksum, a manifest that says the same, and
// failures (refused credentials, a missing bucket or Secret) reported as Failed with a message
// that names what failed, carries no secret, and one Warning Event.
import { expect } from 'chai';
import { crc64, crc64Hex } from '../../../shared/core/rdb/crc64.ts';
import { parseManifest } from '../../../shared/core/backup/manifest.ts';
import { parseSlots } from '../../../shared/core/backup/layout.ts';
import { countSlots } from '../../../shared/core/cluster/slots.ts';
import type { ObjectStore } from '../../../shared/io/object-store.ts';
import { startS3Server, type S3Server } from '../../support/s3-server.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, type Driver } from './harness.ts';
import {
  createBackup,
  readyLoadedCluster,
  s3Secret,
  storageOf,
  storeOf,
  untilFinished,
  type Loaded,
} from './backup-fixture.ts';

const KEYS = 5_000;

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
});
