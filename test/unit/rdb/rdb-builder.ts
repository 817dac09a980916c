// Small hand-made RDB files for the reader's tests: bytes as rdb.c writes them.
import { crc64, crc64Bytes } from '../../../shared/core/rdb/crc64.ts';

export type Bytes = number[];

/** rdbSaveLen: 6-bit, 14-bit, or 32-bit big-endian lengths. */
export function len(n: number): Bytes {
  if (n < 64) return [n];
  if (n < 16384) return [0x40 | (n >> 8), n & 0xff];
  return [0x80, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

export function str(s: string | Uint8Array): Bytes {
  const b = typeof s === 'string' ? Buffer.from(s) : s;
  return [...len(b.length), ...b];
}

/** An integer-encoded string (RDB_ENC_INT8/16/32). */
export function intStr(n: number): Bytes {
  if (n >= -128 && n <= 127) return [0xc0, n & 0xff];
  if (n >= -32768 && n <= 32767) return [0xc1, n & 0xff, (n >> 8) & 0xff];
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return [0xc2, ...b];
}

/** "a" repeated `n` (3..264) times, LZF-compressed: one literal and one back reference. */
export function lzfRepeatedA(n: number): Bytes {
  const compressed = [0x00, 0x61, 0xe0, n - 1 - 9, 0x00];
  return [0xc3, ...len(compressed.length), ...len(n), ...compressed];
}

export function u64le(n: number): Bytes {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(BigInt(n));
  return [...b];
}

export function u32le(n: number): Bytes {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return [...b];
}

export const header = (version = 10): Bytes => [...Buffer.from(`REDIS${String(version).padStart(4, '0')}`)];

/** A whole file: header, body, EOF and its CRC-64 (or `checksum` given as 8 bytes). */
export function rdbFile(body: Bytes, options: { version?: number; checksum?: Bytes } = {}): Buffer {
  const content = Buffer.from([...header(options.version), ...body, 0xff]);
  if ((options.version ?? 10) < 5) return content;
  const checksum = options.checksum ?? [...crc64Bytes(crc64(content))];
  return Buffer.concat([content, Buffer.from(checksum)]);
}

/** What DUMP returns for a value: type, value, version, CRC-64. */
export function dumpOf(type: number, value: Bytes, version = 10): Buffer {
  const body = Buffer.from([type, ...value, version & 0xff, version >> 8]);
  return Buffer.concat([body, crc64Bytes(crc64(body))]);
}

/** The bytes as a source of `size`-byte chunks. */
export async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
