// Redis' CRC-64 (Jones polynomial, reflected, init 0, no final xor: src/crc64.c), the checksum
// at the end of an RDB file and of every DUMP payload. It runs over whole snapshots (GBs), so
// it is slicing-by-8 over two 32-bit halves: BigInt arithmetic per byte would be ~100x slower.

/** The reflected Jones polynomial 0x95ac9329ac4bc9b5 (0xad93d23594c935a9 bit-reversed). */
const POLY_HI = 0x95ac9329;
const POLY_LO = 0xac4bc9b5;

/** TABLE_LO[k * 256 + b] / TABLE_HI[...]: the CRC of byte b followed by k zero bytes. */
const TABLE_LO = new Uint32Array(8 * 256);
const TABLE_HI = new Uint32Array(8 * 256);

for (let b = 0; b < 256; b++) {
  let lo = b;
  let hi = 0;
  for (let bit = 0; bit < 8; bit++) {
    const carry = lo & 1;
    lo = ((lo >>> 1) | (hi << 31)) >>> 0;
    hi = hi >>> 1;
    if (carry) {
      lo = (lo ^ POLY_LO) >>> 0;
      hi = (hi ^ POLY_HI) >>> 0;
    }
  }
  TABLE_LO[b] = lo;
  TABLE_HI[b] = hi;
}
for (let k = 1; k < 8; k++) {
  for (let b = 0; b < 256; b++) {
    const lo = TABLE_LO[(k - 1) * 256 + b] as number;
    const hi = TABLE_HI[(k - 1) * 256 + b] as number;
    const i = lo & 0xff;
    TABLE_LO[k * 256 + b] = ((TABLE_LO[i] as number) ^ ((lo >>> 8) | (hi << 24))) >>> 0;
    TABLE_HI[k * 256 + b] = ((TABLE_HI[i] as number) ^ (hi >>> 8)) >>> 0;
  }
}

/** A running CRC-64 as two 32-bit halves; start from `crc64Init`. */
export interface Crc64 {
  readonly hi: number;
  readonly lo: number;
}

export const crc64Init: Crc64 = { hi: 0, lo: 0 };

/** Per shift k (0..7), the low and high halves of the CRC of byte b followed by k zero bytes. */
const slices = (table: Uint32Array) => Array.from({ length: 8 }, (_, k) => table.slice(k * 256, k * 256 + 256));
type Eight = [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
const [L0, L1, L2, L3, L4, L5, L6, L7] = slices(TABLE_LO) as Eight;
const [H0, H1, H2, H3, H4, H5, H6, H7] = slices(TABLE_HI) as Eight;

const NO_WORDS = new Int32Array(0);
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Continues `crc` over `bytes`. */
export function crc64Update(crc: Crc64, bytes: Uint8Array): Crc64 {
  let { hi, lo } = crc;
  const n = bytes.length;
  // Single bytes up to a 4-byte boundary; then 8 bytes a step, read as two 32-bit words straight
  // from memory (on little-endian hosts; elsewhere every byte takes the single-byte path).
  const head = LITTLE_ENDIAN ? Math.min(n, (4 - (bytes.byteOffset & 3)) & 3) : n;
  const words = n - head >= 8 ? new Int32Array(bytes.buffer, bytes.byteOffset + head, (n - head) >>> 2) : NO_WORDS;
  const pairs = words.length & ~1;
  for (let i = 0; i < head; i++) {
    const x = (lo ^ bytes[i]!) & 0xff;
    lo = L0[x]! ^ ((lo >>> 8) | (hi << 24));
    hi = H0[x]! ^ (hi >>> 8);
  }
  for (let w = 0; w < pairs; w += 2) {
    const a = lo ^ words[w]!;
    const b = hi ^ words[w + 1]!;
    lo =
      L7[a & 0xff]! ^
      L6[(a >>> 8) & 0xff]! ^
      L5[(a >>> 16) & 0xff]! ^
      L4[a >>> 24]! ^
      L3[b & 0xff]! ^
      L2[(b >>> 8) & 0xff]! ^
      L1[(b >>> 16) & 0xff]! ^
      L0[b >>> 24]!;
    hi =
      H7[a & 0xff]! ^
      H6[(a >>> 8) & 0xff]! ^
      H5[(a >>> 16) & 0xff]! ^
      H4[a >>> 24]! ^
      H3[b & 0xff]! ^
      H2[(b >>> 8) & 0xff]! ^
      H1[(b >>> 16) & 0xff]! ^
      H0[b >>> 24]!;
  }
  for (let i = head + pairs * 4; i < n; i++) {
    const x = (lo ^ bytes[i]!) & 0xff;
    lo = L0[x]! ^ ((lo >>> 8) | (hi << 24));
    hi = H0[x]! ^ (hi >>> 8);
  }
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

/** The CRC as Redis writes it: 8 bytes, little-endian. */
export function crc64Bytes(crc: Crc64): Uint8Array {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, crc.lo, true);
  view.setUint32(4, crc.hi, true);
  return out;
}

export function crc64Equals(a: Crc64, b: Crc64): boolean {
  return a.hi === b.hi && a.lo === b.lo;
}

/** The CRC of `bytes` alone. */
export function crc64(bytes: Uint8Array): Crc64 {
  return crc64Update(crc64Init, bytes);
}

export function crc64Hex(crc: Crc64): string {
  return crc.hi.toString(16).padStart(8, '0') + crc.lo.toString(16).padStart(8, '0');
}
