import { expect } from 'chai';
import { Readable } from 'node:stream';
import { crc64, crc64Hex } from '../../../shared/core/rdb/crc64.ts';
import { RdbFormatError } from '../../../shared/core/rdb/errors.ts';
import { storeSnapshot } from '../../../shared/io/backup/store-snapshot.ts';
import type { ObjectStore } from '../../../shared/io/object-store.ts';
import { rdbFile, str } from '../rdb/rdb-builder.ts';

/** A store that keeps what a put read to its end, and nothing of a put whose body failed. */
function memoryStore(): ObjectStore & { objects: Map<string, Buffer> } {
  const objects = new Map<string, Buffer>();
  return {
    objects,
    bucket: 'mem',
    async put(key, body) {
      const chunks: Buffer[] = [];
      for await (const chunk of body as Readable) chunks.push(chunk as Buffer);
      objects.set(key, Buffer.concat(chunks));
      return { size: objects.get(key)!.length };
    },
  } as ObjectStore & { objects: Map<string, Buffer> };
}

const aux = (k: string, v: string) => [0xfa, ...str(k), ...str(v)];
const stringKey = (k: string, v: string) => [0x00, ...str(k), ...str(v)];
const snapshot = rdbFile([...aux('redis-ver', '7.0.15'), 0xfe, 0, ...stringKey('a', '1'), ...stringKey('b', '2')]);
const inChunks = (bytes: Buffer, size: number) =>
  Readable.from(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)),
  );

describe('io/backup store-snapshot', () => {
  it('stores the bytes as they came, with their key count, CRC-64 and Redis version', async () => {
    const store = memoryStore();
    const result = await storeSnapshot(store, 'shard-0.rdb', inChunks(snapshot, 7));
    expect(store.objects.get('shard-0.rdb')).to.deep.equal(snapshot);
    expect(result).to.deep.equal({
      keys: 2,
      bytes: snapshot.length,
      crc64: crc64Hex(crc64(snapshot)),
      redisVersion: '7.0.15',
    });
  });

  it('fails, storing nothing, when the snapshot is corrupt', async () => {
    const store = memoryStore();
    const corrupt = Buffer.from(snapshot);
    corrupt[corrupt.length - 3]! ^= 0xff;
    const error = await storeSnapshot(store, 'shard-0.rdb', inChunks(corrupt, 5)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(RdbFormatError);
    expect(store.objects.size).to.equal(0);
  });
});
