import { expect } from 'chai';
import { validateV1beta1 } from '../../../shared/core/api/validate-spec.ts';
import type { RedisClusterSpec } from '../../../shared/core/api/v1beta1.ts';
import { aBeta } from './builders.ts';

const storage = { s3: { bucket: 'backups', credentialsSecretRef: { name: 's3-keys' } } };
const create = (spec: RedisClusterSpec) => validateV1beta1(aBeta(spec), undefined);
const update = (from: RedisClusterSpec, to: RedisClusterSpec) => validateV1beta1(aBeta(to), aBeta(from));

describe('api/validate-backup (spec.backup and spec.restore)', () => {
  it('refuses a schedule that is not a cron expression, saying which field', () => {
    expect(create({ backup: { schedule: '0 25 * * *', storage } }).denials).to.deep.equal([
      'spec.backup.schedule: the hour field "25" must stay within 0-23',
    ]);
    expect(update({}, { backup: { schedule: 'daily', storage } }).denials[0]).to.match(/spec.backup.schedule: .*5/);
    expect(create({ backup: { schedule: '0 3 * * *', keep: 3, storage } }).denials).to.deep.equal([]);
  });

  it('allows spec.restore at creation and keeps it as it was', () => {
    const restore = { backupName: 'cache-202612040300' };
    expect(create({ restore }).denials).to.deep.equal([]);
    expect(update({ restore }, { restore, masters: 4 }).denials).to.deep.equal([]);
  });

  const refused: [string, RedisClusterSpec, RedisClusterSpec, RegExp][] = [
    ['added to a live cluster', {}, { restore: { backupName: 'b' } }, /cannot be added .* create a new RedisCluster/],
    ['changed', { restore: { backupName: 'a' } }, { restore: { backupName: 'b' } }, /cannot change or be removed/],
    ['removed', { restore: { backupName: 'a' } }, {}, /cannot change or be removed/],
  ];
  for (const [what, from, to, message] of refused)
    it(`refuses spec.restore ${what}`, () => {
      const denials = update(from, to).denials;
      expect(denials).to.have.length(1);
      expect(denials[0]).to.match(message);
    });
});
