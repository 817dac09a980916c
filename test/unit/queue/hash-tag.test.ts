import { expect } from 'chai';
import { clusterPrefix, HashTagError, hashTagOf } from '../../../shared/core/queue/hash-tag.ts';
import { dedupIdOf, queueKeys } from '../../../shared/io/queue/keys.ts';

describe('queue hash tag', () => {
  for (const [key, tag] of [
    ['knredis:reconcile:1', undefined],
    ['{knredis}:reconcile:1', 'knredis'],
    ['a{b}c{d}', 'b'],
    ['{}knredis:{x}', undefined],
    ['a{b', undefined],
    ['knredis:{reconcile}:1', 'reconcile'],
  ] as const)
    it(`reads ${tag === undefined ? 'no tag' : `tag "${tag}"`} in ${key}`, () => {
      expect(hashTagOf(key)).to.equal(tag);
    });

  for (const [prefix, queue, expected] of [
    ['knredis', 'reconcile', '{knredis}'],
    ['{knredis}', 'reconcile', '{knredis}'],
    ['knredis', '{reconcile}', 'knredis'],
    ['team:{a}:q', 'reconcile', 'team:{a}:q'],
  ] as const)
    it(`uses the prefix ${expected} for ${prefix} with queue ${queue}`, () => {
      expect(clusterPrefix(prefix, queue)).to.equal(expected);
    });

  for (const [prefix, queue] of [
    ['kn{}redis', 'reconcile'],
    ['kn{redis', 'reconcile'],
    ['knredis', 're}concile'],
  ] as const)
    it(`refuses braces that make no tag: ${prefix} with queue ${queue}`, () => {
      expect(() => clusterPrefix(prefix, queue)).to.throw(HashTagError, /has braces but no hash tag/);
    });

  it("puts every key of keys.ts in the prefix's slot, whatever the job, key or dedup id", () => {
    const names = { prefix: clusterPrefix('knredis', 'reconcile'), queue: 'reconcile' };
    const k = queueKeys(names);
    const id = dedupIdOf('ns/a{b}');
    const all = [
      k.base,
      k.job('17'),
      k.lock('17'),
      k.dedupNext(id),
      k.dedup(id),
      k.failures,
      k.runs('ns/{x}'),
      k.status,
      k.seen,
      k.timeline,
      k.depth,
    ];
    expect(all.map(hashTagOf)).to.deep.equal(all.map(() => 'knredis'));
  });
});
