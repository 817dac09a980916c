// A dataset with every value type in each of its encodings (7.0 thresholds: 128 entries or
// 64-byte members switch listpacks to hash tables and skiplists), for snapshot round trips.
import type { Redis } from 'ioredis';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Fills `redis` (keys spread over all slots) and returns the key names. */
export async function fillDataset(redis: Redis, prefix = ''): Promise<string[]> {
  const k = (name: string) => `${prefix}${name}`;
  const p = redis.pipeline();
  p.set(k('str:int'), '12345');
  p.set(k('str:negative'), '-70000');
  p.set(k('str:small'), 'hello');
  p.set(k('str:lzf'), 'abcdefgh'.repeat(4000)); // compressible: stored LZF
  p.set(k('str:binary'), Buffer.from(range(1000).map((i) => (i * 7919) & 0xff)));
  p.set('424242', 'an integer-encoded key');
  p.set(k('x'.repeat(200)), 'an LZF-compressed key');
  p.rpush(k('list:small'), 'a', 'b', '3');
  p.rpush(k('list:big'), ...range(3000).map((i) => `element-${i}-${'y'.repeat(i % 50)}`));
  p.sadd(k('set:intset'), 1, 2, 3, 70000, -5);
  p.sadd(k('set:listpack'), 'a', 'b', 'c');
  p.sadd(k('set:big'), ...range(1000).map((i) => `member-${i}`));
  p.zadd(k('zset:small'), 1, 'a', 2.5, 'b', -3, 'c');
  p.zadd(k('zset:big'), ...range(500).flatMap((i) => [i / 7, `m${i}`]));
  p.zadd(k('zset:inf'), 'inf', 'top', '-inf', 'bottom');
  p.hset(k('hash:small'), 'f1', 'v1', 'f2', '2');
  p.hset(k('hash:big'), ...range(1000).flatMap((i) => [`field-${i}`, `value-${i}`]));
  p.hset(k('hash:long-value'), 'f', 'z'.repeat(100));
  for (const i of range(20)) p.xadd(k('stream'), `${1000 + i}-0`, 'n', String(i), 'payload', 'p'.repeat(i));
  p.xgroup('CREATE', k('stream'), 'workers', '0');
  p.xgroup('CREATE', k('stream'), 'idle', '$');
  p.xreadgroup('GROUP', 'workers', 'alice', 'COUNT', 5, 'STREAMS', k('stream'), '>');
  p.xreadgroup('GROUP', 'workers', 'bob', 'COUNT', 3, 'STREAMS', k('stream'), '>');
  p.xack(k('stream'), 'workers', '1001-0');
  p.set(k('ttl:far'), 'v', 'PX', 10_000_000);
  p.hset(k('ttl:hash'), 'f', 'v');
  p.pexpire(k('ttl:hash'), 20_000_000);
  p.set(k('ttl:soon'), 'v', 'PX', 3_600_000);
  for (const i of range(200)) p.set(k(`plain:${i}`), `value-${i}`);
  const replies = await p.exec();
  const failed = replies?.find(([e]) => e);
  if (failed?.[0]) throw failed[0];
  return (await redis.keys('*')).sort();
}

/** What must survive a round trip: value digest, absolute expiry, and for streams their groups. */
export async function keyState(redis: Redis, key: string): Promise<string> {
  const [digest, expireAt, type] = await Promise.all([
    redis.call('DEBUG', 'DIGEST-VALUE', key),
    redis.call('PEXPIRETIME', key),
    redis.type(key),
  ]);
  const groups = type === 'stream' ? await redis.call('XINFO', 'STREAM', key, 'FULL') : null;
  return JSON.stringify([type, digest, expireAt, groups]);
}
