// `npm run bench -- rdb [--keys N] [--collections N]`: the backup data path on one real
// redis-server: DEBUG POPULATE N small strings (default 1,000,000) plus N hashes, lists and sets
// of 1,000 members each (default 100, hash tables and quicklists: walked member by member),
// saved once. Then, each timed alone: CRC-64 over the file, readRdb over the file, a snapshot
// fetched over the replication protocol and read, and restoreRecords into an empty node.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchResult } from './table.ts';
import { startRedis, withRedis, type RedisServer } from '../support/redis-server.ts';
import { crc64Init, crc64Update } from '../../shared/core/rdb/crc64.ts';
import { readRdb } from '../../shared/core/rdb/read-rdb.ts';
import { fetchSnapshot } from '../../shared/io/redis/snapshot.ts';
import { restoreRecords } from '../../shared/io/redis/restore-keys.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';

const CHUNK = 1 << 20;

function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, (performance.now() - started) / 1000];
}

async function fill(node: RedisServer, keys: number, collections: number): Promise<void> {
  await withRedis(
    node.host,
    async (r) => {
      await r.call('DEBUG', 'POPULATE', keys, 'key', 100);
      const members = Array.from({ length: 1000 }, (_, i) => `member-${i}`);
      for (let c = 0; c < collections; c++) {
        const p = r.pipeline();
        p.hset(`hash:${c}`, ...members.flatMap((m) => [m, `value-of-${m}`]));
        p.rpush(`list:${c}`, ...members);
        p.sadd(`set:${c}`, ...members);
        await p.exec();
      }
      await r.call('SAVE');
    },
    node.port,
  );
}

export default async function rdb(args: string[]): Promise<BenchResult> {
  const keys = option(args, 'keys', 1_000_000);
  const collections = option(args, 'collections', 100);
  const source = await startRedis({ args: ['--enable-debug-command', 'yes', '--repl-diskless-sync-delay', '0'] });
  const target = await startRedis();
  const pool = new NodePool();
  try {
    await fill(source, keys, collections);
    const file = join(source.dir, 'dump.rdb');
    const mb = (await stat(file)).size / 1e6;
    const fromFile = () => createReadStream(file, { highWaterMark: CHUNK });

    const [, crcS] = await timed(async () => {
      let crc = crc64Init;
      for await (const chunk of fromFile()) crc = crc64Update(crc, chunk as Buffer);
      return crc;
    });
    const [readKeys, readS] = await timed(async () => {
      let n = 0;
      for await (const _ of readRdb(fromFile())) n++;
      return n;
    });
    const [fetchedKeys, fetchS] = await timed(async () => {
      const snapshot = await fetchSnapshot({ host: source.host, port: source.port });
      let n = 0;
      for await (const _ of readRdb(snapshot.stream)) n++;
      return n;
    });
    const [restored, restoreS] = await timed(() =>
      restoreRecords({ pool, seed: { ip: target.host, port: target.port } }, readRdb(fromFile())),
    );
    const rows: (string | number)[][] = [
      ['CRC-64 over the file', crcS, mb / crcS, NaN],
      ['readRdb over the file', readS, mb / readS, readKeys / readS],
      ['fetchSnapshot + readRdb', fetchS, mb / fetchS, fetchedKeys / fetchS],
      ['readRdb + restoreRecords', restoreS, mb / restoreS, restored.restored / restoreS],
    ];
    return {
      tables: [
        {
          title: `RDB of ${readKeys} keys (${keys} strings, ${3 * collections} collections of 1,000), ${mb.toFixed(0)} MB`,
          columns: ['step', 's', 'MB/s', 'keys/s'],
          rows,
        },
      ],
      summary: {
        keys: readKeys,
        mb: Math.round(mb),
        crcMBps: Math.round(mb / crcS),
        readMBps: Math.round(mb / readS),
        fetchReadMBps: Math.round(mb / fetchS),
        restoreKeysPerS: Math.round(restored.restored / restoreS),
      },
    };
  } finally {
    await pool.close();
    await Promise.all([source.stop(), target.stop()]);
  }
}
