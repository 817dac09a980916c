import { expect } from 'chai';
import { hostPathOf, mapPaths } from '../../../infra/local/kubelet/path-map.ts';

const mappings = [
  { mountPath: '/data', hostPath: '/h/pv-1' },
  { mountPath: '/etc/redis', hostPath: '/h/conf' },
  { mountPath: '/etc/redis/tls/', hostPath: '/h/tls' },
];

describe('infra/local/kubelet/path-map', function () {
  const cases: [string, string][] = [
    ['/data', '/h/pv-1'],
    ['/data/appendonly.aof', '/h/pv-1/appendonly.aof'],
    ['--dir=/data', '--dir=/h/pv-1'],
    ['cp /etc/redis/redis.conf /data/redis.conf', 'cp /h/conf/redis.conf /h/pv-1/redis.conf'],
    ['/etc/redis/tls/ca.crt', '/h/tls/ca.crt'],
    ['"/data"', '"/h/pv-1"'],
    ['/database', '/database'],
    ['/var/data', '/var/data'],
    ['data', 'data'],
    ['', ''],
  ];
  for (const [input, output] of cases) {
    it(`rewrites ${JSON.stringify(input)} to ${JSON.stringify(output)}`, function () {
      expect(mapPaths(input, mappings)).to.equal(output);
    });
  }

  it('leaves text alone when no volume is mounted', function () {
    expect(mapPaths('/data/x', [])).to.equal('/data/x');
  });

  it('never rewrites every slash when a volume is mounted at /', function () {
    expect(mapPaths('/data/x', [{ mountPath: '/', hostPath: '/h/root' }])).to.equal('/data/x');
  });

  it('finds the host path of a container path through the longest mount', function () {
    expect(hostPathOf('/etc/redis/tls/key', mappings)).to.equal('/h/tls/key');
    expect(hostPathOf('/etc/redis', mappings)).to.equal('/h/conf');
    expect(hostPathOf('/data/', mappings)).to.equal('/h/pv-1');
    expect(hostPathOf('/tmp', mappings)).to.equal(undefined);
  });
});
