// A synchronous cursor over the bytes buffered so far. Reading past them throws `SHORT`: the
// streaming reader then buffers more and parses the unit (one opcode, or one key and its value)
// again from its start. Parsing stays synchronous (no promise per field, which would dominate
// on millions of small members), and a retry at least doubles the buffered bytes, so re-parsing
// costs O(size) over a unit's retries.
import { RdbFormatError } from './errors.ts';
import { lzfDecompress } from './lzf.ts';

/** Thrown (never as an error) when a unit needs more bytes than are buffered. */
export const SHORT: unique symbol = Symbol('rdb: need more bytes');

/** Length prefixes (rdb.h): the top two bits of the first byte. */
const LEN_6BIT = 0;
const LEN_14BIT = 1;
const LEN_32BIT = 0x80;
const LEN_64BIT = 0x81;
const LEN_ENCODED = 3;

/** Special string encodings (RDB_ENC_*), the low six bits after LEN_ENCODED. */
const ENC_INT8 = 0;
const ENC_INT16 = 1;
const ENC_INT32 = 2;
const ENC_LZF = 3;

export class Cursor {
  constructor(
    public buf: Uint8Array,
    public pos: number,
    public end: number,
    /** The stream offset of buf[0], for error messages. */
    public base: number,
  ) {}

  offset(): number {
    return this.base + this.pos;
  }

  corrupt(detail: string): RdbFormatError {
    return new RdbFormatError('corrupt', this.offset(), detail);
  }

  need(n: number): void {
    if (this.end - this.pos < n) throw SHORT;
  }

  u8(): number {
    if (this.pos >= this.end) throw SHORT;
    return this.buf[this.pos++]!;
  }

  skip(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw this.corrupt(`impossible length ${n}`);
    this.need(n);
    this.pos += n;
  }

  bytes(n: number): Uint8Array {
    const at = this.pos;
    this.skip(n);
    return this.buf.subarray(at, at + n);
  }

  /** A little-endian unsigned 32-bit integer. */
  u32le(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  }

  /** A little-endian signed 64-bit integer as a number (milliseconds fit in 53 bits). */
  i64le(): number {
    const lo = this.u32le();
    const hi = this.u32le() | 0;
    return hi * 0x1_0000_0000 + lo;
  }

  /** A length, or for an encoded string the encoding (see `lengthOrEncoding`). */
  length(): number {
    const [value, encoded] = this.lengthOrEncoding();
    if (encoded) throw this.corrupt('an encoded value where a length belongs');
    return value;
  }

  /** rdbLoadLen: [value, true] when the top bits say a special string encoding follows. */
  lengthOrEncoding(): [number, boolean] {
    const first = this.u8();
    const kind = (first & 0xc0) >> 6;
    if (kind === LEN_ENCODED) return [first & 0x3f, true];
    if (kind === LEN_6BIT) return [first & 0x3f, false];
    if (kind === LEN_14BIT) return [((first & 0x3f) << 8) | this.u8(), false];
    if (first === LEN_32BIT) return [this.u32be(), false];
    if (first === LEN_64BIT) return [this.u32be() * 0x1_0000_0000 + this.u32be(), false];
    throw this.corrupt(`unknown length prefix 0x${first.toString(16)}`);
  }

  private u32be(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
  }

  /** Skips one string in any encoding (rdbGenericLoadStringObject without decoding). */
  skipString(): void {
    const [value, encoded] = this.lengthOrEncoding();
    if (!encoded) return this.skip(value);
    if (value === ENC_INT8) return this.skip(1);
    if (value === ENC_INT16) return this.skip(2);
    if (value === ENC_INT32) return this.skip(4);
    if (value === ENC_LZF) {
      const compressed = this.length();
      this.length();
      return this.skip(compressed);
    }
    throw this.corrupt(`unknown string encoding ${value}`);
  }

  /** Reads one string, decoded: integers as their decimal text, LZF decompressed. */
  string(): Uint8Array {
    const [value, encoded] = this.lengthOrEncoding();
    if (!encoded) return this.bytes(value);
    if (value === ENC_INT8 || value === ENC_INT16 || value === ENC_INT32) {
      const b = this.bytes(1 << value);
      return new TextEncoder().encode(String(signedLittleEndian(b)));
    }
    if (value === ENC_LZF) {
      const compressed = this.length();
      const length = this.length();
      const at = this.offset();
      return lzfDecompress(this.bytes(compressed), length, at);
    }
    throw this.corrupt(`unknown string encoding ${value}`);
  }
}

function signedLittleEndian(b: Uint8Array): number {
  const view = new DataView(b.buffer, b.byteOffset, b.length);
  if (b.length === 1) return view.getInt8(0);
  if (b.length === 2) return view.getInt16(0, true);
  return view.getInt32(0, true);
}
