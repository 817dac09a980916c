import { expect } from 'chai';
import { parseArgs } from '../../../infra/local/kubelet/cli-args.ts';
import { nextFreeAddress, nodeAddress, parsePrefix } from '../../../infra/local/kubelet/ip-allocation.ts';
import { exitOf, restartDelay, shouldRestart } from '../../../infra/local/kubelet/restart-policy.ts';
import { leaseObject, localNodes, microTime, nodeLabels } from '../../../infra/local/kubelet/node-spec.ts';

describe('infra/local/kubelet/cli-args', function () {
  const base = [
    '--kubeconfig',
    '/k',
    '--state-dir',
    '/s',
    '--nodes',
    '3',
    '--pod-ip-prefix',
    '127.42',
    '--control-port',
    '0',
  ];

  it('reads the contract flags and fills in defaults', function () {
    expect(parseArgs(base)).to.deep.equal({
      kubeconfig: '/k',
      stateDir: '/s',
      nodes: 3,
      podIpPrefix: '127.42',
      controlPort: 0,
      heartbeatMs: 1000,
      backoffBaseMs: 1000,
      backoffCapMs: 10_000,
      logLevel: 'info',
      envName: 'local',
      zones: [],
      probePeriodScale: 1,
      runtime: 'process',
    });
    expect(parseArgs([...base, '--heartbeat-ms=500']).heartbeatMs).to.equal(500);
    expect(parseArgs([...base, '--runtime', 'container']).runtime).to.equal('container');
  });

  it('reads the environment name and a zone per node', function () {
    expect(parseArgs([...base, '--env-name', 'e1', '--zones', 'zone-a,zone-a,zone-b'])).to.include({ envName: 'e1' });
    expect(parseArgs([...base, '--zones', 'zone-a,zone-a,zone-b']).zones).to.deep.equal(['zone-a', 'zone-a', 'zone-b']);
  });

  const bad: [string[], RegExp][] = [
    [base.slice(2), /--kubeconfig is required/],
    [[...base, '--nodes', 'three'], /--nodes must be an integer/],
    [[...base, '--pod-ip-prefix', '10.0'], /127\.X/],
    [[...base, '--bogus', '1'], /unknown flag --bogus/],
    [[...base, '--probe-period-scale', '0'], /--probe-period-scale must be an integer in 1\.\.60/],
    [[...base, 'stray'], /unexpected argument "stray"/],
    [[...base, '--runtime', 'docker'], /--runtime must be process or container, got "docker"/],
  ];
  for (const [argv, error] of bad) {
    it(`refuses ${argv.slice(-2).join(' ')} with a clear message`, function () {
      expect(() => parseArgs(argv)).to.throw(error);
    });
  }
});

describe('infra/local/kubelet/ip-allocation', function () {
  it('never hands out .0 or .255 and never an address in use', function () {
    const used = new Set(['127.5.1.1', '127.5.1.2']);
    expect(nextFreeAddress('127.5', used, 0)).to.deep.equal({ ip: '127.5.1.3', cursor: 3 });
    expect(nextFreeAddress('127.5', new Set(), 253)).to.deep.equal({ ip: '127.5.1.254', cursor: 254 });
    expect(nextFreeAddress('127.5', new Set(), 254).ip).to.equal('127.5.2.1');
  });

  it('moves on from the cursor so a freed address is not reused at once, and wraps around', function () {
    expect(nextFreeAddress('127.5', new Set(), 10).ip).to.equal('127.5.1.11');
    expect(nextFreeAddress('127.5', new Set(), 254 * 254).ip).to.equal('127.5.1.1');
  });

  it('gives nodes 127.X.0.i and validates the prefix', function () {
    expect(nodeAddress('127.5', 2)).to.equal('127.5.0.2');
    expect(parsePrefix('127.07')).to.equal('127.7');
    expect(() => parsePrefix('127.300')).to.throw(/127\.X/);
  });
});

describe('infra/local/kubelet/restart-policy', function () {
  const policies: [string | undefined, number, boolean][] = [
    ['Always', 0, true],
    ['Always', 1, true],
    [undefined, 0, true],
    ['OnFailure', 0, false],
    ['OnFailure', 2, true],
    ['Never', 1, false],
  ];
  for (const [policy, code, restart] of policies) {
    it(`${restart ? 'restarts' : 'does not restart'} after exit ${code} under ${policy ?? 'the default'}`, function () {
      expect(shouldRestart(policy, code)).to.equal(restart);
    });
  }

  it('backs off exponentially up to the cap and forgives a container that ran long', function () {
    const settings = { baseMs: 100, capMs: 1000 };
    expect([0, 1, 2, 3, 4, 50].map((n) => restartDelay(n, 10, settings))).to.deep.equal([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(restartDelay(5, 20_000, settings)).to.equal(0);
  });

  it('reports a signal as 128 + its number', function () {
    expect(exitOf(null, 'SIGKILL', 9)).to.deep.equal({ exitCode: 137, reason: 'Error', signal: 9 });
    expect(exitOf(0, null)).to.deep.equal({ exitCode: 0, reason: 'Completed' });
  });
});

describe('infra/local/kubelet/node-spec', function () {
  it('names nodes local-node-N and spreads them over three zones', function () {
    const nodes = localNodes(4, (i) => `127.5.0.${i}`);
    expect(nodes.map((n) => [n.name, n.zone, n.address])).to.deep.equal([
      ['local-node-1', 'zone-a', '127.5.0.1'],
      ['local-node-2', 'zone-b', '127.5.0.2'],
      ['local-node-3', 'zone-c', '127.5.0.3'],
      ['local-node-4', 'zone-a', '127.5.0.4'],
    ]);
    expect(nodeLabels(nodes[1]!)).to.deep.include({
      'kubernetes.io/hostname': 'local-node-2',
      'topology.kubernetes.io/zone': 'zone-b',
      'kubernetes.io/os': 'linux',
    });
  });

  it('puts node i in the zone given for it (an uneven spread), the rest round-robin', function () {
    expect(localNodes(4, (i) => `127.5.0.${i}`, ['zone-a', 'zone-a', 'zone-b']).map((n) => n.zone)).to.deep.equal([
      'zone-a',
      'zone-a',
      'zone-b',
      'zone-a',
    ]);
  });

  it('writes lease renew times with microseconds, owned by the node', function () {
    expect(microTime(1500)).to.equal('1970-01-01T00:00:01.500000Z');
    const lease = leaseObject(localNodes(1, () => '127.5.0.1')[0]!, 'uid-1', microTime(0), 40);
    expect(lease.metadata?.ownerReferences?.[0]).to.deep.include({ kind: 'Node', uid: 'uid-1' });
  });
});
