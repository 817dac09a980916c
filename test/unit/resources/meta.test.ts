import { expect } from 'chai';
import {
  childLabels,
  hashOf,
  ownerReference,
  selectorLabels,
  stableJson,
} from '../../../shared/core/resources/meta.ts';

describe('meta', () => {
  describe('stableJson', () => {
    const table: [string, unknown, string][] = [
      ['sorts object keys', { b: 1, a: 2 }, '{"a":2,"b":1}'],
      ['sorts nested keys', { z: { y: 1, x: [{ d: 1, c: 2 }] } }, '{"z":{"x":[{"c":2,"d":1}],"y":1}}'],
      ['drops undefined properties', { a: undefined, b: 1 }, '{"b":1}'],
      ['keeps null properties', { a: null }, '{"a":null}'],
      ['keeps array order', [3, 1, 2], '[3,1,2]'],
      ['writes undefined in an array as null, like JSON', [undefined], '[null]'],
      ['writes a bare undefined as null', undefined, 'null'],
      ['escapes strings', { 'k"': 'v\n' }, '{"k\\"":"v\\n"}'],
    ];
    for (const [what, value, want] of table) {
      it(`${what}`, () => {
        expect(stableJson(value)).to.equal(want);
      });
    }

    it('parses back to the same data as JSON.stringify', () => {
      const value = { b: [1, { y: 'x', x: true }], a: { c: null, d: 1.5 } };
      expect(JSON.parse(stableJson(value))).to.deep.equal(JSON.parse(JSON.stringify(value)));
    });
  });

  describe('hashOf', () => {
    it('is the same whatever the key order', () => {
      expect(hashOf({ a: 1, b: { c: 2, d: 3 } })).to.equal(hashOf({ b: { d: 3, c: 2 }, a: 1 }));
    });

    it('ignores undefined properties', () => {
      expect(hashOf({ a: 1, b: undefined })).to.equal(hashOf({ a: 1 }));
    });

    it('changes when a value changes, also deep down', () => {
      expect(hashOf({ a: { b: [1, 2] } })).to.not.equal(hashOf({ a: { b: [2, 1] } }));
      expect(hashOf({ a: '1' })).to.not.equal(hashOf({ a: 1 }));
    });

    it('is 16 hex digits', () => {
      expect(hashOf({})).to.match(/^[0-9a-f]{16}$/);
    });
  });

  describe('labels and owner', () => {
    it("selects a cluster's pods by name and instance only, so extra labels never break the selector", () => {
      expect(selectorLabels('shop')).to.deep.equal({
        'app.kubernetes.io/name': 'redis-cluster',
        'app.kubernetes.io/instance': 'shop',
      });
      expect(childLabels('shop', 'redis')).to.include(selectorLabels('shop'));
      expect(childLabels('shop', 'redis')).to.include({
        'app.kubernetes.io/managed-by': 'knredis',
        'app.kubernetes.io/component': 'redis',
      });
    });

    it('makes the cluster the controlling owner that blocks deletion', () => {
      expect(ownerReference({ metadata: { name: 'shop', namespace: 'ns', uid: 'u1' } })).to.deep.equal({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        name: 'shop',
        uid: 'u1',
        controller: true,
        blockOwnerDeletion: true,
      });
    });
  });
});
