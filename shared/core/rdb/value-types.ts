// Where each value of an RDB ends (rdb.c rdbLoadObject), without building it: the bytes from
// the type byte to here are exactly DUMP's serialization of the value. Encodings that Redis
// stores as one blob (ziplist, listpack, intset, zipmap) are one string; the others are walked.
import type { Cursor } from './cursor.ts';
import { RdbFormatError } from './errors.ts';

/** RDB_TYPE_* (rdb.h). */
export const RdbType = {
  STRING: 0,
  LIST: 1,
  SET: 2,
  ZSET: 3,
  HASH: 4,
  ZSET_2: 5,
  MODULE_PRE_GA: 6,
  MODULE_2: 7,
  HASH_ZIPMAP: 9,
  LIST_ZIPLIST: 10,
  SET_INTSET: 11,
  ZSET_ZIPLIST: 12,
  HASH_ZIPLIST: 13,
  LIST_QUICKLIST: 14,
  STREAM_LISTPACKS: 15,
  HASH_LISTPACK: 16,
  ZSET_LISTPACK: 17,
  LIST_QUICKLIST_2: 18,
  STREAM_LISTPACKS_2: 19,
  SET_LISTPACK: 20,
  STREAM_LISTPACKS_3: 21,
  HASH_METADATA_PRE_GA: 22,
  HASH_LISTPACK_EX_PRE_GA: 23,
  HASH_METADATA: 24,
  HASH_LISTPACK_EX: 25,
} as const;

/** RDB_MODULE_OPCODE_* : the self-describing fields of a module value. */
const MODULE_EOF = 0;
const MODULE_SINT = 1;
const MODULE_UINT = 2;
const MODULE_FLOAT = 3;
const MODULE_DOUBLE = 4;
const MODULE_STRING = 5;

/** An old-style (type 3) zset score: a length byte, or 253/254/255 for nan/+inf/-inf. */
const DOUBLE_SPECIAL_MIN = 253;
/** A stream ID as saved raw in PELs: ms and seq, 64-bit big-endian each. */
const STREAM_ID_BYTES = 16;
const MILLISECOND_TIME_BYTES = 8;

/** Moves `c` past the value of `type` (the type byte already read). */
export function skipValue(c: Cursor, type: number): void {
  switch (type) {
    case RdbType.STRING:
    case RdbType.HASH_ZIPMAP:
    case RdbType.LIST_ZIPLIST:
    case RdbType.SET_INTSET:
    case RdbType.ZSET_ZIPLIST:
    case RdbType.HASH_ZIPLIST:
    case RdbType.HASH_LISTPACK:
    case RdbType.ZSET_LISTPACK:
    case RdbType.SET_LISTPACK:
    case RdbType.HASH_LISTPACK_EX_PRE_GA:
      return c.skipString();
    case RdbType.HASH_LISTPACK_EX:
      c.skip(MILLISECOND_TIME_BYTES); // the hash's next field expiry
      return c.skipString();
    case RdbType.LIST:
    case RdbType.SET:
    case RdbType.LIST_QUICKLIST:
      return skipStrings(c, c.length());
    case RdbType.HASH:
      return skipStrings(c, 2 * c.length());
    case RdbType.ZSET:
      for (let n = c.length(); n > 0; n--) {
        c.skipString();
        const size = c.u8();
        if (size < DOUBLE_SPECIAL_MIN) c.skip(size);
      }
      return;
    case RdbType.ZSET_2:
      for (let n = c.length(); n > 0; n--) {
        c.skipString();
        c.skip(8); // binary double
      }
      return;
    case RdbType.LIST_QUICKLIST_2:
      for (let n = c.length(); n > 0; n--) {
        c.length(); // container: plain or packed
        c.skipString();
      }
      return;
    case RdbType.HASH_METADATA:
    case RdbType.HASH_METADATA_PRE_GA:
      if (type === RdbType.HASH_METADATA) c.skip(MILLISECOND_TIME_BYTES);
      for (let n = c.length(); n > 0; n--) {
        c.length(); // field TTL
        c.skipString();
        c.skipString();
      }
      return;
    case RdbType.STREAM_LISTPACKS:
    case RdbType.STREAM_LISTPACKS_2:
    case RdbType.STREAM_LISTPACKS_3:
      return skipStream(c, type);
    case RdbType.MODULE_2:
      c.length(); // module id
      return skipModuleFields(c);
    case RdbType.MODULE_PRE_GA:
      throw new RdbFormatError('unsupported', c.offset(), 'a pre-GA (Redis 4.0 RC) module value');
    default:
      throw c.corrupt(`unknown value type ${type}`);
  }
}

function skipStrings(c: Cursor, count: number): void {
  for (let n = count; n > 0; n--) c.skipString();
}

function skipStream(c: Cursor, type: number): void {
  const v2 = type >= RdbType.STREAM_LISTPACKS_2;
  const v3 = type >= RdbType.STREAM_LISTPACKS_3;
  // Listpacks, each under its master entry ID (a 16-byte string).
  skipStrings(c, 2 * c.length());
  // Length and last ID; v2 adds first ID, max deleted ID and entries added.
  skipLengths(c, v2 ? 8 : 3);
  for (let groups = c.length(); groups > 0; groups--) {
    c.skipString(); // name
    skipLengths(c, v2 ? 3 : 2); // last delivered ID; v2: entries read
    for (let pending = c.length(); pending > 0; pending--) {
      c.skip(STREAM_ID_BYTES + MILLISECOND_TIME_BYTES); // ID, delivery time
      c.length(); // delivery count
    }
    for (let consumers = c.length(); consumers > 0; consumers--) {
      c.skipString(); // name
      c.skip(v3 ? 2 * MILLISECOND_TIME_BYTES : MILLISECOND_TIME_BYTES); // seen; v3: active
      const owned = c.length();
      c.skip(owned * STREAM_ID_BYTES);
    }
  }
}

function skipLengths(c: Cursor, count: number): void {
  for (let n = count; n > 0; n--) c.length();
}

/** Module values (and MODULE_AUX) are self-describing: typed fields up to an EOF opcode. */
export function skipModuleFields(c: Cursor): void {
  for (;;) {
    const opcode = c.length();
    switch (opcode) {
      case MODULE_EOF:
        return;
      case MODULE_SINT:
      case MODULE_UINT:
        c.length();
        break;
      case MODULE_FLOAT:
        c.skip(4);
        break;
      case MODULE_DOUBLE:
        c.skip(8);
        break;
      case MODULE_STRING:
        c.skipString();
        break;
      default:
        throw c.corrupt(`unknown module field opcode ${opcode}`);
    }
  }
}
