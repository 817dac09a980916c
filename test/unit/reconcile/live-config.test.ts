import { expect } from 'chai';
import { configSetValue, normalizeValue, sameValue } from '../../../functions/reconcile/live-config.ts';

describe('live-config', () => {
  describe('normalizeValue', () => {
    // [key, what the spec says, what CONFIG GET answers]: the same setting, so no CONFIG SET.
    const same: [string, string, string][] = [
      ['maxmemory', '100mb', '104857600'],
      ['maxmemory', '100MB', '104857600'],
      ['maxmemory', '1gb', '1073741824'],
      ['maxmemory', '1g', '1000000000'],
      ['maxmemory', '2m', '2000000'],
      ['maxmemory', '5k', '5000'],
      ['maxmemory', '5kb', '5120'],
      ['maxmemory', '7b', '7'],
      ['maxmemory', '0', '0'],
      ['appendonly', 'YES', 'yes'],
      ['maxmemory-policy', 'allkeys-LRU', 'allkeys-lru'],
      ['save', ' 900  1   300 10 ', '900 1 300 10'],
      ['save', '""', ''],
      ['save', '', ''],
      [
        'client-output-buffer-limit',
        'normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60',
        'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60',
      ],
      ['notify-keyspace-events', 'KEA', 'AKE'],
      ['notify-keyspace-events', 'Ex', 'xE'],
      ['notify-keyspace-events', 'Kg$lshzxetd', 'AK'],
      ['notify-keyspace-events', '""', ''],
    ];
    for (const [key, spec, redis] of same) {
      it(`takes ${key} ${JSON.stringify(spec)} and Redis' ${JSON.stringify(redis)} for the same value`, () => {
        expect(normalizeValue(spec, key)).to.equal(normalizeValue(redis, key));
      });
    }

    const different: [string, string, string][] = [
      ['maxmemory', '100mb', '100000000'],
      ['maxmemory', '1gb', '1000000000'],
      ['appendonly', 'yes', 'no'],
      ['save', '900 1', '900 1 300 10'],
      ['save', '""', '3600 1'],
      ['notify-keyspace-events', 'KEA', 'Kea'],
      ['notify-keyspace-events', 'E', 'e'],
      ['client-output-buffer-limit', 'normal 0 0 0 replica 256mb 64mb 60', 'normal 0 0 0 slave 256000000 64000000 60'],
    ];
    for (const [key, spec, redis] of different) {
      it(`tells ${key} ${JSON.stringify(spec)} from Redis' ${JSON.stringify(redis)}`, () => {
        expect(normalizeValue(spec, key)).to.not.equal(normalizeValue(redis, key));
      });
    }

    it('spells a memory size in bytes', () => {
      expect(normalizeValue('100mb')).to.equal('104857600');
      expect(normalizeValue('1G')).to.equal('1000000000');
    });
  });

  describe('configSetValue', () => {
    const table: [string, string][] = [
      ['""', ''],
      ["''", ''],
      ['900 1', '900 1'],
      ['100mb', '100mb'],
      ['', ''],
    ];
    for (const [value, want] of table) {
      it(`sends ${JSON.stringify(value)} as ${JSON.stringify(want)} (CONFIG SET refuses redis.conf's quotes)`, () => {
        expect(configSetValue(value)).to.equal(want);
      });
    }
  });

  describe('sameValue', () => {
    const redis = 'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60';
    const table: [string, string, string, boolean][] = [
      ['client-output-buffer-limit', redis, 'pubsub 32mb 8mb 60', true],
      ['client-output-buffer-limit', redis, 'replica 256mb 64mb 60 normal 0 0 0', true],
      ['client-output-buffer-limit', redis, 'normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60', true],
      ['client-output-buffer-limit', redis, 'pubsub 64mb 8mb 60', false],
      ['client-output-buffer-limit', redis, 'normal 0 0 0 pubsub 32mb 8mb 61', false],
      ['maxmemory', '104857600', '100mb', true],
      ['maxmemory', '104857600', '100m', false],
    ];
    for (const [key, current, wanted, same] of table) {
      it(`${same ? 'finds' : 'does not find'} ${key} ${JSON.stringify(wanted)} in Redis' ${JSON.stringify(current)}`, () => {
        expect(sameValue(key, current, wanted)).to.equal(same);
      });
    }
  });
});
