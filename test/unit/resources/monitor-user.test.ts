import { expect } from 'chai';
import {
  desiredMonitorSecret,
  isMonitorUserCurrent,
  MONITOR_COMMANDS,
  monitorAclRules,
  monitorHashOf,
  monitorUserLine,
} from '../../../shared/core/resources/monitor-user.ts';
import { aRedisCluster } from '../reconcile/builders.ts';

const HASH = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
/** ACL GETUSER knredis-monitor as Redis 7.0 prints it (commands in its own order). */
const held = (fields: Record<string, unknown> = {}): unknown[] =>
  Object.entries({
    flags: ['on', 'sanitize-payload'],
    passwords: [HASH],
    commands:
      '-@all +latency|histogram +latency|latest +info +cluster|info +cluster|slots +slowlog|len +slowlog|get +ping +client|setname',
    keys: '',
    channels: '',
    selectors: [],
    ...fields,
  }).flat();

describe('monitor-user', () => {
  describe('monitorAclRules', () => {
    const rules = monitorAclRules(HASH);

    it('starts from nothing (reset, -@all) and takes the password by its hash', () => {
      expect(rules.slice(0, 3)).to.deep.equal(['reset', 'on', `#${HASH}`]);
      expect(rules).to.include('-@all');
      expect(rules.filter((r) => r.startsWith('>'))).to.deep.equal([]);
    });

    it('allows exactly the commands redis_exporter runs, no category, no key, no channel', () => {
      expect(rules.filter((r) => r.startsWith('+'))).to.deep.equal(MONITOR_COMMANDS.map((c) => `+${c}`));
      expect(rules.filter((r) => /^(\+@|~|%|&|allkeys|allchannels|allcommands)/.test(r))).to.deep.equal([]);
    });

    // CONFIG GET prints requirepass and masterauth; the rest write or administer.
    for (const command of ['config|get', 'config', 'acl', 'client|list', 'client|kill', 'set', 'get', 'eval', 'keys'])
      it(`does not allow ${command}`, () => {
        expect(rules).not.to.include(`+${command}`);
      });

    it('makes the include file line from the same rules', () => {
      expect(monitorUserLine(HASH)).to.equal(`user knredis-monitor ${rules.join(' ')}`);
    });
  });

  describe('the Secret', () => {
    const owner = aRedisCluster().owner();
    const secret = desiredMonitorSecret(owner, { password: 'pw', hash: HASH });

    it('is <name>-monitor, owned by the RedisCluster, with the password and its hash', () => {
      expect(secret.metadata?.name).to.equal(`${owner.metadata.name}-monitor`);
      expect(secret.metadata?.namespace).to.equal(owner.metadata.namespace);
      expect(secret.metadata?.ownerReferences?.map((r) => [r.kind, r.uid, r.controller])).to.deep.equal([
        ['RedisCluster', owner.metadata.uid, true],
      ]);
      expect(Object.keys(secret.data ?? {}).sort()).to.deep.equal(['password', 'password-sha256']);
      expect(monitorHashOf(secret)).to.equal(HASH);
    });

    const unreadable: [string, Record<string, string> | undefined][] = [
      ['there is no Secret', undefined],
      ['the hash is not a sha256', { password: 'cHc=', 'password-sha256': Buffer.from('x').toString('base64') }],
      ['the password is missing', { 'password-sha256': Buffer.from(HASH).toString('base64') }],
    ];
    for (const [what, data] of unreadable)
      it(`holds no hash when ${what} (the reconcile writes a new one)`, () => {
        expect(monitorHashOf(data ? { data } : undefined)).to.equal(undefined);
      });
  });

  describe('isMonitorUserCurrent', () => {
    const table: [string, unknown[] | undefined, boolean][] = [
      ['the user is as wanted (commands in Redis` own order)', held(), true],
      ['the user does not exist', undefined, false],
      ['it holds another password', held({ passwords: [OTHER] }), false],
      ['it holds a second password', held({ passwords: [HASH, OTHER] }), false],
      ['it is off', held({ flags: ['off', 'sanitize-payload'] }), false],
      ['a command was added', held({ commands: `${String(held()[5])} +set` }), false],
      ['a command is missing', held({ commands: '-@all +ping' }), false],
      ['it may read keys', held({ keys: '~*' }), false],
      ['it may use channels', held({ channels: '&*' }), false],
    ];
    for (const [what, user, want] of table)
      it(`is ${want} when ${what}`, () => {
        expect(isMonitorUserCurrent(user, HASH)).to.equal(want);
      });
  });
});
