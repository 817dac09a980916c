// One unit of an RDB file at a time: the header, an opcode with its operands, or a key with its
// value (whose extent value-types.ts finds). Pure and synchronous over a Cursor: a unit that is
// not whole yet throws SHORT, and the streaming reader tries it again with more bytes.
import type { Cursor } from './cursor.ts';
import { RdbFormatError } from './errors.ts';
import { skipModuleFields, skipValue } from './value-types.ts';

/** The newest format read (Redis 7.4); a newer one may hold value types unknown here. */
export const RDB_VERSION_MAX = 12;
/** The first version with a CRC-64 after the EOF opcode. */
const RDB_VERSION_CHECKSUM = 5;

/** Opcodes (RDB_OPCODE_* in rdb.h). */
const OP = {
  SLOT_INFO: 244,
  FUNCTION2: 245,
  FUNCTION_PRE_GA: 246,
  MODULE_AUX: 247,
  IDLE: 248,
  FREQ: 249,
  AUX: 250,
  RESIZEDB: 251,
  EXPIRETIME_MS: 252,
  EXPIRETIME: 253,
  SELECTDB: 254,
  EOF: 255,
} as const;

const MAGIC = new TextEncoder().encode('REDIS');
const HEADER_BYTES = 9;

export type Unit =
  | { readonly kind: 'none' }
  | { readonly kind: 'expire'; readonly ms: number }
  | { readonly kind: 'db'; readonly db: number }
  | { readonly kind: 'aux'; readonly key: string; readonly value: string }
  | { readonly kind: 'function'; readonly code: Uint8Array }
  | { readonly kind: 'key'; readonly type: number; readonly key: Uint8Array; readonly valueStart: number }
  | { readonly kind: 'eof'; readonly checksum?: Uint8Array };

export function readHeader(c: Cursor): number {
  const head = c.bytes(HEADER_BYTES);
  if (!MAGIC.every((b, i) => head[i] === b)) throw c.corrupt('not an RDB file (no REDIS magic)');
  const digits = utf8(head.subarray(MAGIC.length));
  const version = /^\d{4}$/.test(digits) ? Number(digits) : NaN;
  if (!(version >= 1)) throw c.corrupt(`bad RDB version "${digits}"`);
  if (version > RDB_VERSION_MAX) throw new RdbFormatError('unsupported', 5, `RDB version ${version}`);
  return version;
}

export function readUnit(c: Cursor, version: number): Unit {
  const type = c.u8();
  switch (type) {
    case OP.EOF:
      return { kind: 'eof', ...(version >= RDB_VERSION_CHECKSUM ? { checksum: c.bytes(8) } : {}) };
    case OP.SELECTDB:
      return { kind: 'db', db: c.length() };
    case OP.EXPIRETIME_MS:
      return { kind: 'expire', ms: c.i64le() };
    case OP.EXPIRETIME:
      return { kind: 'expire', ms: c.u32le() * 1000 };
    case OP.AUX:
      return { kind: 'aux', key: utf8(c.string()), value: utf8(c.string()) };
    case OP.FUNCTION2:
      return { kind: 'function', code: c.string() };
    case OP.FREQ:
      c.skip(1);
      return { kind: 'none' };
    case OP.IDLE:
      c.length();
      return { kind: 'none' };
    case OP.RESIZEDB:
      c.length();
      c.length();
      return { kind: 'none' };
    case OP.SLOT_INFO:
      c.length();
      c.length();
      c.length();
      return { kind: 'none' };
    case OP.MODULE_AUX:
      c.length(); // module id
      c.length(); // when opcode
      c.length(); // when
      skipModuleFields(c);
      return { kind: 'none' };
    case OP.FUNCTION_PRE_GA:
      throw new RdbFormatError('unsupported', c.offset() - 1, 'functions of a Redis 7.0 release candidate');
    default: {
      const key = c.string();
      const valueStart = c.pos;
      skipValue(c, type);
      return { kind: 'key', type, key, valueStart };
    }
  }
}

const utf8 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('utf8');
