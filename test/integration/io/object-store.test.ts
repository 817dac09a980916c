// The object store against a real S3-compatible server (SeaweedFS): what a backup needs from it,
// large streamed bodies, listing past one page, deleting, and errors a caller can act on.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { ListMultipartUploadsCommand, ListObjectsV2Command, ListPartsCommand, S3Client } from '@aws-sdk/client-s3';
import {
  createS3Store,
  ObjectNotFoundError,
  ObjectStoreAbortedError,
  ObjectStoreAccessDeniedError,
  ObjectStoreError,
  ObjectStoreUnreachableError,
  type ObjectStore,
  type S3StoreConfig,
} from '../../../shared/io/object-store.ts';
import { freePort } from '../../support/redis-server.ts';
import { startS3Server, type S3Server } from '../../support/s3-server.ts';
import { testCa } from '../../support/tls-certs.ts';
import { waitFor } from '../../support/wait-for.ts';

const MiB = 1024 * 1024;

/** `size` random bytes in 1 MiB chunks, and the sha256 of what it produced once it ends. */
function randomBody(size: number) {
  const hash = createHash('sha256');
  let left = size;
  const stream = Readable.from(
    (function* () {
      while (left > 0) {
        const chunk = randomBytes(Math.min(MiB, left));
        left -= chunk.length;
        hash.update(chunk);
        yield chunk;
      }
    })(),
  );
  return { stream, digest: () => hash.digest('hex') };
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A body that gives `first` bytes and then nothing until destroyed (a source that stalls). */
function stallingBody(first: number): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) this.push(randomBytes(first));
      sent = true;
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('shared/io/object-store (S3 on a real SeaweedFS)', function () {
  this.timeout(180_000);
  let server: S3Server;
  let config: S3StoreConfig;
  let store: ObjectStore;
  let raw: S3Client;

  before(async () => {
    server = await startS3Server();
    config = { ...server, prefix: 'backups' };
    store = createS3Store(config);
    raw = new S3Client({ ...server, forcePathStyle: true, credentials: server });
  });
  after(async () => {
    store?.close();
    raw?.destroy();
    await server?.stop();
  });

  it('streams a 20 MB body up in parts and back byte for byte', async () => {
    const body = randomBody(20 * MiB);
    let progress = 0;
    const put = await store.put('rt/shard-0.rdb', body.stream, { onProgress: (b) => (progress = b) });
    expect(put.size).to.equal(20 * MiB);
    expect(progress).to.equal(20 * MiB);
    // A multipart object's ETag ends in -<parts>: 20 MiB in the default 8 MiB parts is three.
    expect(put.etag).to.match(/-3"?$/);
    expect((await store.head('rt/shard-0.rdb'))?.size).to.equal(20 * MiB);
    expect(await sha256(await store.get('rt/shard-0.rdb'))).to.equal(body.digest());
  });

  it('puts a Buffer in one request and reads it back', async () => {
    const bytes = randomBytes(1000);
    expect((await store.put('small.bin', bytes)).size).to.equal(1000);
    expect(await sha256(await store.get('small.bin'))).to.equal(createHash('sha256').update(bytes).digest('hex'));
  });

  it('writes and reads a JSON manifest, and refuses one that is not JSON', async () => {
    const manifest = { cluster: 'default/cache', shards: [{ slots: '0-5460', key: 'rt/shard-0.rdb' }] };
    await store.putJson('m/manifest.json', manifest);
    expect(await store.getJson('m/manifest.json')).to.deep.equal(manifest);
    await store.put('m/not-json', Buffer.from('{ half'));
    const error = await rejection(store.getJson('m/not-json'));
    expect(error).to.be.instanceOf(ObjectStoreError).and.to.include({ kind: 'failed' });
    expect(error.message).to.match(/not JSON/);
  });

  it('lists every key under a prefix past one page, relative to the store prefix', async () => {
    const keys = Array.from({ length: 7 }, (_, i) => `ls/a/${i}`);
    await Promise.all([...keys, 'ls/b/0', 'ls/ab'].map((k) => store.put(k, Buffer.from(k))));
    // The server honours a small page: three keys and a continuation, so the list needs three pages.
    const page = await raw.send(
      new ListObjectsV2Command({ Bucket: server.bucket, Prefix: 'backups/ls/a/', MaxKeys: 3 }),
    );
    expect(page.IsTruncated).to.equal(true);
    expect(page.Contents).to.have.length(3);

    const listed = await store.list('ls/a/', { pageSize: 3 });
    expect(listed.map((o) => o.key)).to.deep.equal(keys);
    expect(listed.map((o) => o.size)).to.deep.equal(keys.map((k) => k.length));
    expect(listed.every((o) => o.lastModified instanceof Date && o.lastModified.getTime() > 0)).to.equal(true);
    // The prefix is the store's: a store without one sees the same objects under backups/.
    const unprefixed = createS3Store({ ...server });
    try {
      expect((await unprefixed.list('backups/ls/a/')).map((o) => o.key)).to.deep.equal(keys.map((k) => `backups/${k}`));
    } finally {
      unprefixed.close();
    }
  });

  it('deletes keys, a missing one included, and leaves the others', async () => {
    const keys = ['del/0', 'del/1', 'del/2'];
    await Promise.all(keys.map((k) => store.put(k, Buffer.from(k))));
    await store.delete(['del/0', 'del/2', 'del/never-was']);
    expect((await store.list('del/')).map((o) => o.key)).to.deep.equal(['del/1']);
    expect(await store.head('del/0')).to.equal(undefined);
    await store.delete([]);
  });

  it('says not-found for a missing key, and head gives undefined', async () => {
    for (const read of [() => store.get('nothing/here'), () => store.getJson('nothing/here')]) {
      const error = await rejection(read());
      expect(error).to.be.instanceOf(ObjectNotFoundError).and.to.include({ kind: 'not-found' });
      expect(error.message).to.contain(`${server.bucket}/nothing/here`);
    }
    expect(await store.head('nothing/here')).to.equal(undefined);
  });

  it('says not-found, naming the bucket, when the bucket does not exist', async () => {
    const other = createS3Store({ ...config, bucket: 'no-such-bucket-here' });
    try {
      const error = await rejection(other.get('x'));
      expect(error).to.be.instanceOf(ObjectNotFoundError);
      expect(error.message).to.match(/bucket does not exist/);
    } finally {
      other.close();
    }
  });

  it('says access-denied for wrong credentials, with no secret in the message', async () => {
    const wrongSecret = randomBytes(30).toString('base64url');
    const cases: Array<[string, S3StoreConfig]> = [
      ['a wrong secret', { ...config, secretAccessKey: wrongSecret }],
      ['an unknown access key', { ...config, accessKeyId: 'knredisunknown0000', secretAccessKey: wrongSecret }],
    ];
    for (const [what, bad] of cases) {
      const denied = createS3Store(bad);
      try {
        const calls = [
          () => denied.list(''),
          () => denied.get('rt/shard-0.rdb'),
          () => denied.put('x', Buffer.from('x')),
        ];
        for (const call of calls) {
          const error = await rejection(call());
          expect(error, what).to.be.instanceOf(ObjectStoreAccessDeniedError).and.to.include({ kind: 'access-denied' });
          const shown = `${error.message} ${error.stack} ${JSON.stringify(error)}`;
          for (const secret of [wrongSecret, server.secretAccessKey, server.accessKeyId])
            expect(shown, what).not.to.contain(secret);
        }
      } finally {
        denied.close();
      }
    }
  });

  it('says unreachable when nothing listens at the endpoint', async () => {
    const nowhere = createS3Store({ ...config, endpoint: `http://127.0.0.1:${await freePort()}` });
    try {
      const error = await rejection(nowhere.head('x'));
      expect(error).to.be.instanceOf(ObjectStoreUnreachableError).and.to.include({ kind: 'unreachable' });
      expect(error.message).to.match(/ECONNREFUSED/);
    } finally {
      nowhere.close();
    }
  });

  it('aborts an upload mid-way: no object under the key, no parts left, the body destroyed', async () => {
    const key = 'abort/shard-1.rdb';
    const fullKey = `backups/${key}`;
    const body = stallingBody(6 * MiB);
    const controller = new AbortController();
    const putting = store.put(key, body, { partSize: 5 * MiB, signal: controller.signal });
    // Mid-way: the multipart upload exists and its first part is stored.
    const uploadId = await waitFor(
      async () => {
        const out = await raw.send(new ListMultipartUploadsCommand({ Bucket: server.bucket, Prefix: fullKey }));
        const id = out.Uploads?.find((u) => u.Key === fullKey)?.UploadId;
        if (id === undefined) return undefined;
        const parts = await raw.send(new ListPartsCommand({ Bucket: server.bucket, Key: fullKey, UploadId: id }));
        return (parts.Parts?.length ?? 0) > 0 ? id : undefined;
      },
      { what: 'the first part of the upload stored' },
    );
    expect(uploadId).to.be.a('string');
    controller.abort();
    const error = await rejection(putting);
    expect(error).to.be.instanceOf(ObjectStoreAbortedError).and.to.include({ kind: 'aborted' });
    expect(body.destroyed).to.equal(true);
    expect(await store.head(key)).to.equal(undefined);
    const left = await raw.send(new ListMultipartUploadsCommand({ Bucket: server.bucket, Prefix: fullKey }));
    expect(left.Uploads ?? []).to.deep.equal([]);
  });

  it('refuses a call whose signal is already aborted, without touching the store', async () => {
    const signal = AbortSignal.abort();
    const body = randomBody(MiB).stream;
    for (const call of [() => store.put('pre/aborted', body, { signal }), () => store.list('', { signal })])
      expect(await rejection(call())).to.be.instanceOf(ObjectStoreAbortedError);
    expect(await store.head('pre/aborted')).to.equal(undefined);
  });

  it("rejects with the body's own error when the body fails, and stores nothing", async () => {
    const broken = new Error('source connection lost');
    const body = new Readable({
      read() {
        this.push(randomBytes(MiB));
        if (this.readableLength > 0) setImmediate(() => this.destroy(broken));
      },
    });
    expect(await rejection(store.put('broken/shard', body))).to.equal(broken);
    expect(await store.head('broken/shard')).to.equal(undefined);
  });
});

describe('shared/io/object-store over TLS (a real SeaweedFS with a private CA)', function () {
  this.timeout(180_000);
  const ca = testCa('knredis object store CA');
  let server: S3Server;

  before(async () => {
    server = await startS3Server({ tls: { ...ca.issue(['localhost']), ca: ca.ca } });
  });
  after(async () => {
    await server?.stop();
    ca.cleanup();
  });

  it('stores and reads back over https when given the CA, and refuses the server without it', async () => {
    expect(server.endpoint).to.match(/^https:/);
    const trusting = createS3Store({ ...server, ca: ca.ca });
    const untrusting = createS3Store({ ...server });
    try {
      await trusting.putJson('tls/manifest.json', { shards: 3 });
      expect(await trusting.getJson('tls/manifest.json')).to.deep.equal({ shards: 3 });
      const error = await rejection(untrusting.head('tls/manifest.json'));
      expect(error).to.be.instanceOf(ObjectStoreError).and.to.include({ kind: 'failed' });
      expect(error.message).to.match(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    } finally {
      trusting.close();
      untrusting.close();
    }
  });
});
