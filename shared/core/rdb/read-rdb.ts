// A streaming RDB reader: from the bytes of a snapshot (a file, or a SYNC transfer) to one
// record per key, each holding its value exactly as `DUMP key` would return it, ready for
// `RESTORE key ttl payload ABSTTL`. Memory stays bounded by the largest single value: bytes
// are buffered one unit (an opcode, or a key and its value) at a time. The file's own CRC-64 is
// checked at the end; a caller that wants all or nothing must finish the iteration before
// trusting what it wrote (a corrupt file throws only when the defect is reached).
import { Cursor, SHORT } from './cursor.ts';
import { crc64, crc64Bytes, crc64Init, crc64Update, type Crc64 } from './crc64.ts';
import { RdbFormatError } from './errors.ts';
import { readHeader, readUnit } from './units.ts';

export interface RdbRecord {
  readonly db: number;
  readonly key: Buffer;
  /** What `DUMP key` returns: type, value, 2-byte RDB version, CRC-64 (both little-endian). */
  readonly payload: Buffer;
  /** Absolute expiry in Unix milliseconds, when the key has one. */
  readonly expireAtMs?: number;
}

/** What the file says about itself; complete once the iteration has ended. */
export interface RdbInfo {
  version: number;
  /** AUX fields: redis-ver, redis-bits, ctime, used-mem, repl-id, ... */
  readonly aux: Map<string, string>;
  /** FUNCTION2 entries: each library's source code. */
  readonly functions: Buffer[];
  keys: number;
  /** 'absent' when the writer ran with rdbchecksum no (or the version predates checksums). */
  checksum?: 'verified' | 'absent';
}

/** Bytes asked of the source at least per refill. */
const MIN_FILL = 64 * 1024;

/** Reads `source` as an RDB file; `info` fills in as it goes. */
export function readRdb(source: AsyncIterable<Uint8Array>): AsyncIterable<RdbRecord> & { readonly info: RdbInfo } {
  const info: RdbInfo = { version: 0, aux: new Map(), functions: [], keys: 0 };
  return { info, [Symbol.asyncIterator]: () => records(source, info) };
}

async function* records(source: AsyncIterable<Uint8Array>, info: RdbInfo): AsyncGenerator<RdbRecord> {
  const input = source[Symbol.asyncIterator]();
  let buf = new Uint8Array(MIN_FILL);
  let start = 0;
  let end = 0;
  let base = 0;
  let exhausted = false;
  let crc: Crc64 = crc64Init;

  // Keeps the unit being parsed (from `start`) and at least doubles what is buffered of it.
  const fill = async () => {
    if (start > 0) {
      buf.copyWithin(0, start, end);
      base += start;
      end -= start;
      start = 0;
    }
    const target = Math.max(MIN_FILL, 2 * end);
    // Give back what one big value needed once the units are small again.
    if (buf.length > 4 * target) buf = buf.slice(0, Math.max(target, end));
    while (end < target) {
      const next = await input.next();
      if (next.done) {
        exhausted = true;
        return;
      }
      const chunk = next.value;
      if (end + chunk.length > buf.length) {
        const grown = new Uint8Array(Math.max(2 * buf.length, end + chunk.length));
        grown.set(buf.subarray(0, end));
        buf = grown;
      }
      buf.set(chunk, end);
      end += chunk.length;
    }
  };

  // Parses one unit, buffering more until it is whole; returns it and where it ended.
  const next = async <T>(parse: (c: Cursor) => T): Promise<[T, Cursor]> => {
    for (;;) {
      const c = new Cursor(buf, start, end, base);
      try {
        return [parse(c), c];
      } catch (error) {
        if (error !== SHORT) throw error;
        if (exhausted) throw new RdbFormatError('truncated', base + end, 'the source ended inside the file');
        await fill();
      }
    }
  };
  const commit = (upTo: number) => {
    crc = crc64Update(crc, buf.subarray(start, upTo));
    start = upTo;
  };

  try {
    const [version, header] = await next(readHeader);
    info.version = version;
    commit(header.pos);
    let db = 0;
    let expireAtMs: number | undefined;
    for (;;) {
      const [unit, c] = await next((c) => readUnit(c, info.version));
      switch (unit.kind) {
        case 'none':
          break;
        case 'expire':
          expireAtMs = unit.ms;
          break;
        case 'db':
          db = unit.db;
          break;
        case 'aux':
          info.aux.set(unit.key, unit.value);
          break;
        case 'function':
          info.functions.push(Buffer.from(unit.code));
          break;
        case 'key': {
          const record: RdbRecord = {
            db,
            key: Buffer.from(unit.key),
            payload: dumpPayload(unit.type, buf.subarray(unit.valueStart, c.pos), info.version),
            ...(expireAtMs === undefined ? {} : { expireAtMs }),
          };
          commit(c.pos);
          expireAtMs = undefined;
          info.keys++;
          yield record;
          continue;
        }
        case 'eof': {
          commit(c.pos - (unit.checksum?.length ?? 0));
          info.checksum = verify(crc, unit.checksum, base + start);
          // Nothing may follow: bytes after EOF mean the transfer was framed wrong.
          if (c.pos < end || !(await input.next()).done)
            throw new RdbFormatError('corrupt', base + c.pos, 'bytes after the end of the file');
          return;
        }
      }
      commit(c.pos);
    }
  } finally {
    await input.return?.();
  }
}

/** DUMP's format: the serialized value, the RDB version and a CRC-64 of both. */
function dumpPayload(type: number, value: Uint8Array, version: number): Buffer {
  const size = 1 + value.length;
  const payload = Buffer.allocUnsafe(size + 10);
  payload[0] = type;
  payload.set(value, 1);
  payload.writeUInt16LE(version, size);
  const crc = crc64(payload.subarray(0, size + 2));
  payload.writeUInt32LE(crc.lo, size + 2);
  payload.writeUInt32LE(crc.hi, size + 6);
  return payload;
}

function verify(crc: Crc64, checksum: Uint8Array | undefined, offset: number): 'verified' | 'absent' {
  if (!checksum || checksum.every((b) => b === 0)) return 'absent';
  const expected = crc64Bytes(crc);
  if (!expected.every((b, i) => checksum[i] === b)) {
    throw new RdbFormatError('checksum', offset, 'the CRC-64 at the end does not match the file');
  }
  return 'verified';
}
