import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, withRedis, type RedisServer } from '../../support/redis-server.ts';
import { testCa } from '../../support/tls-certs.ts';
import { Servers } from './shard.ts';
import { waitFor } from '../../support/wait-for.ts';
import { fetchSnapshot, SnapshotError, type Snapshot } from '../../../shared/io/redis/snapshot.ts';
import { readRdb } from '../../../shared/core/rdb/read-rdb.ts';
import { RdbFormatError } from '../../../shared/core/rdb/errors.ts';
import { restoreRecords } from '../../../shared/io/redis/restore-keys.ts';
import { NodePool } from '../../../shared/io/redis/connection.ts';
import { keyState } from './dataset.ts';

async function* chunksOf(bytes: Buffer): AsyncGenerator<Uint8Array> {
  yield bytes;
}

describe('redis snapshot: fetch from a replica, read, restore', function () {
  this.timeout(120_000);
  const servers = new Servers();
  let pool: NodePool | undefined;
  afterEach(async () => {
    await pool?.close();
    await servers.stop();
  });
  const start = (args: string[] = []) => servers.start(args);
  const client = (s: RedisServer) => servers.client(s);
  const shard = (args: string[], fill?: (r: Redis) => Promise<unknown>) => servers.shard(args, fill);

  async function collect(snapshot: Snapshot): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of snapshot.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  // Diskless, the node waits 2 s for more replicas first, sending newlines meanwhile.
  for (const [diskless, delay] of [
    ['no', '0'],
    ['yes', '2'],
  ] as const) {
    it(`restores every key with its value and expiry (repl-diskless-sync ${diskless})`, async () => {
      const { master, replica } = await shard(['--repl-diskless-sync', diskless, '--repl-diskless-sync-delay', delay]);
      const snapshot = await fetchSnapshot({ host: replica.host, port: replica.port });
      // The node says the size up front only when it wrote a file first ($<len>, not $EOF:<mark>).
      expect(snapshot.bytes !== undefined).to.equal(diskless === 'no');
      const target = await start();
      pool = new NodePool();
      const reader = readRdb(snapshot.stream);
      const result = await restoreRecords({ pool, seed: { ip: target.host, port: target.port } }, reader);

      const keys = (await client(master).keys('*')).sort();
      expect(result).to.deep.equal({ restored: keys.length, skippedExisting: 0, skippedExpired: 0 });
      expect(reader.info.checksum).to.equal('verified');
      expect(reader.info.aux.get('redis-ver')).to.match(/^\d+\.\d+\.\d+$/);
      expect((await client(target).keys('*')).sort()).to.deep.equal(keys);
      for (const key of keys) {
        expect(await keyState(client(target), key), key).to.equal(await keyState(client(master), key));
      }
      // No replica lingers on the node: the connection closed after the payload.
      await waitFor(async () => (await client(replica).call('CLIENT', 'LIST', 'TYPE', 'replica')) === '', {
        what: 'no replica connection left on the node',
      });
    });
  }

  it('authenticates as an ACL user, and names no password when refused', async () => {
    const { replica } = await shard(['--repl-diskless-sync-delay', '0'], (r) => r.set('k', 'v'));
    const admin = client(replica);
    await admin.call('ACL', 'SETUSER', 'backup', 'on', '>backup-secret', '+sync', '+replconf');
    await admin.call('CONFIG', 'SET', 'requirepass', 'admin-secret');
    const at = { host: replica.host, port: replica.port };

    const refusals = await Promise.all(
      [undefined, { username: 'backup', password: 'wrong-secret' }].map((auth) =>
        fetchSnapshot({ ...at, ...(auth ? { auth } : {}) }).then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    for (const refusal of refusals) {
      expect(refusal).to.be.instanceOf(SnapshotError);
      expect((refusal as Error).message).not.to.match(/secret/);
    }
    const snapshot = await fetchSnapshot({ ...at, auth: { username: 'backup', password: 'backup-secret' } });
    const keys: string[] = [];
    for await (const record of readRdb(snapshot.stream)) keys.push(record.key.toString());
    expect(keys).to.deep.equal(['k']);
  });

  /** 48 MB that does not compress: more than socket buffers hold, so a transfer can stall. */
  const bigValues = async (r: Redis) => {
    const random = (i: number) => Buffer.from(Array.from({ length: 1 << 20 }, (_, j) => (i * 31 + j * 7919) % 251));
    for (let i = 0; i < 48; i++) await r.set(`big:${i}`, random(i));
  };

  it('closes the connection when aborted in the middle of a transfer', async () => {
    const { replica } = await shard(['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0'], bigValues);
    const controller = new AbortController();
    const snapshot = await fetchSnapshot({ host: replica.host, port: replica.port, signal: controller.signal });
    const failed = new Promise<unknown>((resolve) => snapshot.stream.once('error', resolve));
    // Nobody reads: the node is left blocked on a full socket, the transfer mid-way.
    await waitFor(async () => (await client(replica).call('CLIENT', 'LIST', 'TYPE', 'replica')) !== '', {
      what: 'the transfer under way',
    });
    controller.abort();
    expect(((await failed) as Error).name).to.equal('AbortError');
    await waitFor(async () => (await client(replica).call('CLIENT', 'LIST', 'TYPE', 'replica')) === '', {
      what: 'the node to drop the aborted transfer',
    });
  });

  it('lets a slow reader pause a transfer for longer than the idle timeout', async () => {
    const { replica } = await shard(['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0'], bigValues);
    const snapshot = await fetchSnapshot({ host: replica.host, port: replica.port, idleTimeoutMs: 100 });
    const stream = snapshot.stream;
    const failure = new Promise<unknown>((resolve) => stream.once('error', resolve));
    // Backpressure holds the socket still; two looks at it are at least one 200 ms poll apart.
    let looks = 0;
    await waitFor(() => stream.readableLength >= stream.readableHighWaterMark && ++looks >= 2, {
      what: 'the transfer paused by its reader over two looks',
    });
    const keys: string[] = [];
    const reading = (async () => {
      for await (const record of readRdb(stream)) keys.push(record.key.toString());
    })();
    expect(await Promise.race([reading.then(() => 'read'), failure])).to.equal('read');
    expect(keys).to.have.length(48);
  });

  it('detects a changed byte and a cut in a real snapshot', async () => {
    const { replica } = await shard(['--repl-diskless-sync-delay', '0']);
    const rdb = await collect(await fetchSnapshot({ host: replica.host, port: replica.port }));
    const defect = async (bytes: Buffer) => {
      try {
        for await (const _ of readRdb(chunksOf(bytes))) void _;
        return 'none';
      } catch (error) {
        if (error instanceof RdbFormatError) return error.defect;
        throw error;
      }
    };
    expect(await defect(rdb)).to.equal('none');
    const changed = Buffer.from(rdb);
    // A byte inside the big compressible string's LZF data: still well-formed, only the CRC tells.
    const at = rdb.indexOf('abcdefgh') + 2;
    changed[at] = (changed[at] ?? 0) ^ 0x20;
    expect(await defect(changed)).to.equal('checksum');
    expect(await defect(rdb.subarray(0, rdb.length - 100))).to.equal('truncated');
  });

  it('fetches over TLS, verifying the node against the CA it is given', async () => {
    const ca = testCa();
    const other = testCa('another CA');
    const dir = await mkdtemp(join(tmpdir(), 'knredis-snapshot-tls-'));
    try {
      const server = ca.issue(['localhost']);
      const file = async (name: string, text: string) => (await writeFile(join(dir, name), text), join(dir, name));
      const tlsPort = await freePort();
      const node = await start([
        ...['--tls-port', String(tlsPort), '--tls-auth-clients', 'no'],
        ...['--tls-cert-file', await file('tls.crt', server.cert), '--tls-key-file', await file('tls.key', server.key)],
        ...['--tls-ca-cert-file', await file('ca.crt', ca.ca)],
      ]);
      await client(node).set('over', 'tls');
      const at = { host: node.host, port: tlsPort };
      const refused = await fetchSnapshot({ ...at, tls: { ca: other.ca } }).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(SnapshotError);
      const snapshot = await fetchSnapshot({ ...at, tls: { ca: ca.ca } });
      const keys: string[] = [];
      for await (const record of readRdb(snapshot.stream)) keys.push(record.key.toString());
      expect(keys).to.deep.equal(['over']);
    } finally {
      ca.cleanup();
      other.cleanup();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a snapshot while the replica has no link to its master', async () => {
    const lonely = await start(['--replicaof', '127.0.0.1', '1']);
    const refused = await fetchSnapshot({ host: lonely.host, port: lonely.port }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(SnapshotError);
    expect((refused as Error).message).to.match(/NOMASTERLINK/);
    await withRedis(lonely.host, (r) => r.ping(), lonely.port);
  });
});
