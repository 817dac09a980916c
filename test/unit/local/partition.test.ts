import { expect } from 'chai';
import { partitionRules, taggedRules } from '../../../infra/local/kubelet/partition.ts';

describe('infra/local/kubelet/partition', function () {
  const drop = (from: string, to: string) => [
    '-s',
    `${from}/32`,
    '-d',
    `${to}/32`,
    '-m',
    'comment',
    '--comment',
    'knredis-t',
    '-j',
    'DROP',
  ];

  it('drops every pair across groups both ways, and nothing within a group', function () {
    expect(partitionRules([['127.1.0.1', '127.0.0.1'], ['127.1.0.2']], 'knredis-t')).to.deep.equal([
      drop('127.1.0.1', '127.1.0.2'),
      drop('127.1.0.2', '127.1.0.1'),
      drop('127.0.0.1', '127.1.0.2'),
      drop('127.1.0.2', '127.0.0.1'),
    ]);
  });

  it('cuts three groups pairwise', function () {
    expect(partitionRules([['a'], ['b'], ['c']], 'knredis-t')).to.have.length(6);
  });

  it("finds only its own environment's rules in iptables -S output, as -D arguments", function () {
    const listed = [
      '-P INPUT ACCEPT',
      '-A INPUT -s 127.1.0.1/32 -d 127.1.0.2/32 -m comment --comment knredis-t -j DROP',
      '-A INPUT -s 127.1.0.1/32 -d 127.1.0.2/32 -m comment --comment knredis-t2 -j DROP',
      '-A INPUT -s 10.0.0.1/32 -j ACCEPT',
    ].join('\n');
    expect(taggedRules(listed, 'knredis-t')).to.deep.equal([drop('127.1.0.1', '127.1.0.2')]);
  });

  it('finds them in the chain asked for, as a bridge partition puts them in three', function () {
    const listed = [
      '-P FORWARD DROP',
      '-A FORWARD -s 10.101.1.1/32 -d 10.101.1.2/32 -m comment --comment knredis-t -j DROP',
      '-A FORWARD -j NETAVARK_FORWARD',
    ].join('\n');
    expect(taggedRules(listed, 'knredis-t', 'FORWARD')).to.deep.equal([drop('10.101.1.1', '10.101.1.2')]);
    expect(taggedRules(listed, 'knredis-t')).to.deep.equal([]);
  });
});
