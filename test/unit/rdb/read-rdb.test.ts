import { expect } from 'chai';
import { readRdb, type RdbRecord } from '../../../shared/core/rdb/read-rdb.ts';
import { RdbFormatError } from '../../../shared/core/rdb/errors.ts';
import { chunks, dumpOf, intStr, len, lzfRepeatedA, rdbFile, str, u32le, u64le, type Bytes } from './rdb-builder.ts';

async function read(file: Uint8Array, chunkSize = 1) {
  const reader = readRdb(chunks(file, chunkSize));
  const records: RdbRecord[] = [];
  for await (const r of reader) records.push(r);
  return { records, info: reader.info };
}

async function defectOf(file: Uint8Array): Promise<string> {
  try {
    await read(file, 3);
  } catch (error) {
    if (error instanceof RdbFormatError) return error.defect;
    throw error;
  }
  return 'none';
}

/** A string key "k" = "v", to show that what came before it ended where it should. */
const plainKey: Bytes = [0, ...str('k'), ...str('v')];
const streamId = Array.from({ length: 16 }, (_, i) => i);

describe('readRdb', () => {
  describe('value types: the payload is DUMP and the next key is found', () => {
    const cases: [string, number, Bytes][] = [
      ['string', 0, str('hello')],
      ['int-encoded string', 0, intStr(-1234)],
      ['LZF string', 0, lzfRepeatedA(40)],
      ['list (old)', 1, [...len(2), ...str('a'), ...intStr(7)]],
      ['set (hash table)', 2, [...len(2), ...str('a'), ...str('b')]],
      [
        'zset (text scores, nan/inf)',
        3,
        [...len(3), ...str('a'), 3, ...Buffer.from('1.5'), ...str('b'), 253, ...str('c'), 254],
      ],
      ['hash (hash table)', 4, [...len(1), ...str('f'), ...str('v')]],
      ['zset_2 (binary scores)', 5, [...len(2), ...str('a'), ...u64le(1), ...str('b'), ...u64le(2)]],
      [
        'module 2 (every field opcode)',
        7,
        [...len(12345), 1, ...len(5), 2, ...len(6), 3, ...u32le(0), 4, ...u64le(0), 5, ...str('s'), 0],
      ],
      ['zipmap hash', 9, str('zipmap-blob')],
      ['ziplist list', 10, str('ziplist-blob')],
      ['intset', 11, str('intset-blob')],
      ['ziplist zset', 12, str('zl')],
      ['ziplist hash', 13, str('zl')],
      ['quicklist', 14, [...len(2), ...str('zl1'), ...str('zl2')]],
      ['listpack hash', 16, str('lp')],
      ['listpack zset', 17, str('lp')],
      ['quicklist 2', 18, [...len(2), ...len(2), ...str('lp'), ...len(1), ...str('plain element')]],
      ['listpack set', 20, str('lp')],
      ['hash with field TTLs (pre-GA)', 22, [...len(1), ...len(0), ...str('f'), ...str('v')]],
      ['listpack hash with field TTLs (pre-GA)', 23, str('lp')],
      [
        'hash with field TTLs',
        24,
        [...u64le(1000), ...len(2), ...len(1), ...str('f'), ...str('v'), ...len(0), ...str('g'), ...str('w')],
      ],
      ['listpack hash with field TTLs', 25, [...u64le(1000), ...str('lp')]],
    ];
    for (const [name, type, value] of cases) {
      it(`reads a ${name} (type ${type})`, async () => {
        const { records } = await read(rdbFile([type, ...str('key'), ...value, ...plainKey]));
        expect(records.map((r) => r.key.toString())).to.deep.equal(['key', 'k']);
        expect(records[0]?.payload.toString('hex')).to.equal(dumpOf(type, value).toString('hex'));
        expect(records[1]?.payload.toString('hex')).to.equal(dumpOf(0, str('v')).toString('hex'));
      });
    }

    const stream = (type: number): Bytes => {
      const v2 = type >= 19;
      const v3 = type >= 21;
      return [
        ...len(1),
        ...str(Buffer.from(streamId)),
        ...str('listpack'),
        ...len(3),
        ...len(1700000000000),
        ...len(0), // length, last id
        ...(v2 ? [...len(1), ...len(0), ...len(0), ...len(0), ...len(3)] : []),
        ...len(1),
        ...str('group'),
        ...len(1),
        ...len(0),
        ...(v2 ? len(2) : []),
        ...len(1),
        ...streamId,
        ...u64le(1700000000000),
        ...len(1), // group PEL
        ...len(1),
        ...str('alice'),
        ...u64le(1700000000000),
        ...(v3 ? u64le(1700000000000) : []),
        ...len(1),
        ...streamId, // consumer PEL
      ];
    };
    for (const type of [15, 19, 21]) {
      it(`reads a stream with a consumer group and pending entries (type ${type})`, async () => {
        const { records } = await read(rdbFile([type, ...str('s'), ...stream(type), ...plainKey]));
        expect(records.map((r) => r.key.toString())).to.deep.equal(['s', 'k']);
        expect(records[0]?.payload.toString('hex')).to.equal(dumpOf(type, stream(type)).toString('hex'));
      });
    }
  });

  describe('opcodes', () => {
    const cases: [string, Bytes, Partial<RdbRecord>][] = [
      ['AUX', [250, ...str('redis-ver'), ...str('7.0.15'), 250, ...str('redis-bits'), ...intStr(64)], { db: 0 }],
      ['SELECTDB', [254, ...len(3)], { db: 3 }],
      ['RESIZEDB', [251, ...len(100), ...len(20)], { db: 0 }],
      ['SLOT_INFO', [244, ...len(5), ...len(10), ...len(1)], { db: 0 }],
      ['EXPIRETIME_MS', [252, ...u64le(1_900_000_000_123)], { expireAtMs: 1_900_000_000_123 }],
      ['EXPIRETIME (seconds)', [253, ...u32le(1_900_000_000)], { expireAtMs: 1_900_000_000_000 }],
      ['IDLE', [248, ...len(1000)], { db: 0 }],
      ['FREQ', [249, 5], { db: 0 }],
      ['FUNCTION2', [245, ...str('#!lua name=lib\nredis.register_function("f", function() end)')], { db: 0 }],
      ['MODULE_AUX', [247, ...len(99), ...len(2), ...len(1), 5, ...str('aux'), 2, ...len(7), 0], { db: 0 }],
    ];
    for (const [name, bytes, expected] of cases) {
      it(`reads ${name} before a key`, async () => {
        const { records, info } = await read(rdbFile([...bytes, ...plainKey]));
        expect(records).to.have.length(1);
        expect(records[0]).to.include(expected);
        if (!('expireAtMs' in expected)) expect(records[0]).not.to.have.property('expireAtMs');
        expect(info.checksum).to.equal('verified');
        if (name === 'AUX')
          expect([...info.aux]).to.deep.equal([
            ['redis-ver', '7.0.15'],
            ['redis-bits', '64'],
          ]);
        if (name === 'FUNCTION2') expect(info.functions[0]?.toString()).to.match(/^#!lua name=lib/);
      });
    }

    it('gives an expiry to its own key only', async () => {
      const { records } = await read(rdbFile([252, ...u64le(5), ...plainKey, ...plainKey]));
      expect(records.map((r) => r.expireAtMs)).to.deep.equal([5, undefined]);
    });

    it('decodes integer and LZF keys to their text', async () => {
      const { records } = await read(
        rdbFile([0, ...intStr(-7), ...str('v'), 0, ...intStr(70000), ...str('v'), 0, ...lzfRepeatedA(30), ...str('v')]),
      );
      expect(records.map((r) => r.key.toString())).to.deep.equal(['-7', '70000', 'a'.repeat(30)]);
    });

    it('reads files of the same bytes alike, whatever the chunk size', async () => {
      const file = rdbFile([
        250,
        ...str('x'),
        ...str('y'),
        254,
        ...len(1),
        252,
        ...u64le(9),
        ...plainKey,
        14,
        ...str('q'),
        ...len(1),
        ...str('z'.repeat(70_000)),
      ]);
      const one = await read(file, 1);
      const big = await read(file, 100_000);
      expect(big.records).to.deep.equal(one.records);
      expect(one.records.map((r) => [r.db, r.key.toString()])).to.deep.equal([
        [1, 'k'],
        [1, 'q'],
      ]);
    });

    it('accepts a file written with rdbchecksum no (a zero CRC) and one older than checksums', async () => {
      expect((await read(rdbFile(plainKey, { checksum: [0, 0, 0, 0, 0, 0, 0, 0] }))).info.checksum).to.equal('absent');
      expect((await read(rdbFile(plainKey, { version: 4 }))).info.checksum).to.equal('absent');
    });
  });

  describe('defects', () => {
    const good = rdbFile([
      250,
      ...str('redis-ver'),
      ...str('7.0.15'),
      252,
      ...u64le(5),
      ...plainKey,
      18,
      ...str('l'),
      ...len(1),
      ...len(2),
      ...str('lp'),
    ]);

    it('reports truncation wherever the file is cut', async () => {
      for (let n = 0; n < good.length; n++)
        expect(await defectOf(good.subarray(0, n)), `cut at ${n}`).to.equal('truncated');
      expect(await defectOf(good)).to.equal('none');
    });

    it('reports a changed byte anywhere after the header', async () => {
      for (let at = 9; at < good.length; at++) {
        const bad = Buffer.from(good);
        bad[at] = (bad[at] ?? 0) ^ 0x01;
        expect(await defectOf(bad), `byte ${at}`).to.be.oneOf(['checksum', 'corrupt', 'truncated']);
      }
    });

    it('reports bytes after the EOF opcode as corrupt', async () => {
      expect(await defectOf(Buffer.concat([rdbFile(plainKey), Buffer.from('\n')]))).to.equal('corrupt');
    });

    it('reports a bad CRC as a checksum defect', async () => {
      expect(await defectOf(rdbFile(plainKey, { checksum: [1, 2, 3, 4, 5, 6, 7, 8] }))).to.equal('checksum');
    });

    const cases: [string, Buffer, string][] = [
      ['an unknown value type', rdbFile([8, ...str('k'), ...str('v')]), 'corrupt'],
      ['a pre-GA module value', rdbFile([6, ...str('k'), ...len(1)]), 'unsupported'],
      ['an unknown module field opcode', rdbFile([7, ...str('k'), ...len(1), 9]), 'corrupt'],
      ['an unknown string encoding', rdbFile([0, ...str('k'), 0xc5]), 'corrupt'],
      ['bad LZF data', rdbFile([0, 0xc3, ...len(2), ...len(10), 0x00, 0x61, ...str('v')]), 'corrupt'],
      ['a file that is not an RDB', Buffer.from('HELLO0010\xff'), 'corrupt'],
      ['a newer RDB version', rdbFile(plainKey, { version: 13 }), 'unsupported'],
    ];
    for (const [name, file, defect] of cases) {
      it(`reports ${name} as ${defect}`, async () => {
        expect(await defectOf(file)).to.equal(defect);
      });
    }
  });
});
