// Streams one node's snapshot into the object store while reading it as an RDB: the bytes go to
// the store as they come (bounded memory, backpressure from the upload), and the reader counts
// the keys, checks the file's own CRC-64 at its end and takes the Redis version the node wrote.
// A snapshot the reader refuses (truncated, corrupt) fails the upload, so no object is left
// that a restore would take for a backup.
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { crc64Hex, crc64Init, crc64Update } from '../../core/rdb/crc64.ts';
import { readRdb } from '../../core/rdb/read-rdb.ts';
import type { ObjectStore } from '../object-store.ts';

export interface StoredSnapshot {
  readonly keys: number;
  readonly bytes: number;
  /** CRC-64 (Jones, as Redis computes it) of the stored bytes, hex. */
  readonly crc64: string;
  readonly redisVersion: string;
}

export async function storeSnapshot(
  store: ObjectStore,
  key: string,
  source: Readable,
  signal?: AbortSignal,
): Promise<StoredSnapshot> {
  const upload = new PassThrough();
  const put = store.put(key, upload, { signal, contentType: 'application/octet-stream' });
  // Rejects when the upload does, so a write waiting for 'drain' is not left hanging.
  const putFailed = put.then(
    () => new Promise<never>(() => undefined),
    (error: unknown) => Promise.reject(error),
  );
  putFailed.catch(() => undefined);
  const input = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let crc = crc64Init;
  let bytes = 0;
  const forward = async (chunk: Buffer) => {
    crc = crc64Update(crc, chunk);
    bytes += chunk.length;
    if (!upload.write(chunk)) await Promise.race([once(upload, 'drain'), putFailed]);
  };
  // Pulled by the reader; the iterator is not closed when the reader stops at the end mark.
  async function* tap(): AsyncGenerator<Buffer> {
    for (;;) {
      const next = await input.next();
      if (next.done) return;
      await forward(next.value);
      yield next.value;
    }
  }
  try {
    const rdb = readRdb(tap());
    for await (const record of rdb) void record;
    // whatever follows the end mark (nothing, from a well-behaved node) is stored as it came
    for (let next = await input.next(); !next.done; next = await input.next()) await forward(next.value);
    upload.end();
    await put;
    return { keys: rdb.info.keys, bytes, crc64: crc64Hex(crc), redisVersion: rdb.info.aux.get('redis-ver') ?? '' };
  } catch (error) {
    source.destroy();
    upload.destroy(error as Error);
    await put.catch(() => undefined);
    throw error;
  }
}
