import { expect } from 'chai';
import {
  atLeast,
  buildScript,
  exporterBuildScript,
  knativeBuildScript,
  planSetup,
  seaweedBuildScript,
  type Facts,
} from '../../../infra/setup/plan.mjs';

const allCommands = {
  'redis-server': true,
  'redis-cli': true,
  openssl: true,
  chromium: true,
  iptables: true,
  'lua5.1': true,
  promtool: true,
  podman: true,
  runc: true,
  mmdebstrap: true,
};

/** A machine where everything `npm test` needs is in place. */
function aMachine(overrides: Partial<Facts> = {}, commands: Record<string, boolean> = {}): Facts {
  return {
    purpose: 'test',
    node: '20.20.2',
    nodeNeeded: '>=20.19',
    nodeModules: 'current',
    commands: { ...allCommands, ...commands },
    binaries: true,
    knative: true,
    exporter: true,
    seaweedfs: true,
    aptGet: true,
    root: true,
    interactive: false,
    ...overrides,
  };
}

const npmCi = ['npm', 'ci', '--no-audit', '--no-fund'];
const apt = (prefix: string[], ...names: string[]) => [
  [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'update', '-q'],
  [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q', ...names],
];

describe('infra/setup/plan', function () {
  // [what, machine, the commands it runs (in order)]
  const runs: [string, Facts, string[][]][] = [
    ['nothing when everything is in place', aMachine(), []],
    ['npm ci when node_modules is missing', aMachine({ nodeModules: 'missing' }), [npmCi]],
    ['npm ci when node_modules is older than package-lock.json', aMachine({ nodeModules: 'stale' }), [npmCi]],
    [
      'no npm ci into a node_modules that links to another checkout',
      aMachine({ nodeModules: 'stale', nodeModulesLink: '/elsewhere/node_modules' }),
      [],
    ],
    [
      'apt-get for just the missing packages, as root',
      aMachine({}, { 'redis-cli': false, iptables: false }),
      apt([], 'redis-tools', 'iptables'),
    ],
    [
      'apt-get through sudo -n when sudo needs no password',
      aMachine({ root: false, sudo: 'nopasswd' }, { openssl: false }),
      apt(['sudo', '-n'], 'openssl'),
    ],
    [
      'apt-get through sudo when it can ask for a password in a terminal',
      aMachine({ root: false, sudo: 'password', interactive: true }, { openssl: false }),
      apt(['sudo'], 'openssl'),
    ],
    ['no chromium or iptables for npm run dev', aMachine({ purpose: 'dev' }, { chromium: false, iptables: false }), []],
    ['no podman for plain npm run dev', aMachine({ purpose: 'dev' }, { podman: false, runc: false }), []],
    [
      'podman, runc and mmdebstrap for npm run dev -- --in-cluster, and not chromium',
      aMachine({ purpose: 'in-cluster' }, { podman: false, runc: false, mmdebstrap: false, chromium: false }),
      apt([], 'podman', 'runc', 'mmdebstrap'),
    ],
    [
      'the control-plane build when it is not cached and Go is there',
      aMachine({ binaries: false, go: 'go1.26.8' }),
      [['bash', buildScript]],
    ],
    ['nothing for Go once the control plane is built', aMachine({ binaries: true }), []],
    [
      'the Knative build for npm test when it is not cached and Go is there',
      aMachine({ knative: false, go: 'go1.26.8' }),
      [['bash', knativeBuildScript]],
    ],
    ['no Knative build for npm run dev', aMachine({ purpose: 'dev', knative: false }), []],
    [
      'the control plane, then Knative, when neither is built',
      aMachine({ binaries: false, knative: false, go: 'go1.26.8' }),
      [
        ['bash', buildScript],
        ['bash', knativeBuildScript],
      ],
    ],
    [
      'the redis_exporter build, for npm test and npm run dev, when it is not cached and Go is there',
      aMachine({ purpose: 'dev', exporter: false, go: 'go1.26.8' }),
      [['bash', exporterBuildScript]],
    ],
    [
      'the SeaweedFS build for npm test when it is not cached and Go is there',
      aMachine({ seaweedfs: false, go: 'go1.26.8' }),
      [['bash', seaweedBuildScript]],
    ],
    ['no SeaweedFS build for npm run dev', aMachine({ purpose: 'dev', seaweedfs: undefined }), []],
    [
      'every Go build, control plane first, when none is built',
      aMachine({ binaries: false, knative: false, exporter: false, seaweedfs: false, go: 'go1.26.8' }),
      [
        ['bash', buildScript],
        ['bash', knativeBuildScript],
        ['bash', exporterBuildScript],
        ['bash', seaweedBuildScript],
      ],
    ],
    [
      'npm ci, then packages, then the build, when all three are missing',
      aMachine({ nodeModules: 'missing', binaries: false, go: 'go1.27.0' }, { 'redis-server': false }),
      [npmCi, ...apt([], 'redis-server'), ['bash', buildScript]],
    ],
  ];
  for (const [what, machine, commands] of runs) {
    it(`runs ${what}`, function () {
      const plan = planSetup(machine);
      expect(plan.problems).to.deep.equal([]);
      expect(plan.actions.flatMap((a) => a.run)).to.deep.equal(commands);
    });
  }

  // [what, machine, what the problem says]: nothing is run then, even what could be.
  const problems: [string, Facts, RegExp][] = [
    [
      'Node is older than engines.node',
      aMachine({ node: '20.18.3', nodeModules: 'missing' }),
      /Node >=20\.19 is needed, this is 20\.18\.3: install it from https:\/\/nodejs\.org/,
    ],
    [
      'Go is missing and the control plane is not built',
      aMachine({ binaries: false, nodeModules: 'missing' }),
      /Go >= 1\.26 is needed once.*go is not on PATH.*https:\/\/go\.dev\/dl\//,
    ],
    ['Go is too old to build it', aMachine({ binaries: false, go: 'go1.25.9' }), /Go >= 1\.26.*this is go1\.25\.9/],
    [
      'Go is missing and Knative is not built (npm test)',
      aMachine({ knative: false }),
      /Go >= 1\.26 is needed once, to build Knative's ApiServerSource adapter and webhooks.*go is not on PATH/,
    ],
    [
      'Go is missing and redis_exporter is not built',
      aMachine({ exporter: false }),
      /Go >= 1\.26 is needed once, to build redis_exporter \(the local pods' exporter sidecar\).*go is not on PATH/,
    ],
    [
      'Go is missing and SeaweedFS is not built (npm test)',
      aMachine({ seaweedfs: false }),
      /Go >= 1\.26 is needed once, to build SeaweedFS \(the S3 server of the backup tests\).*go is not on PATH/,
    ],
    [
      'a package is missing and there is no apt-get',
      aMachine({ aptGet: false }, { 'redis-server': false }),
      /missing: redis-server \(.*\)\. This machine has no apt-get/,
    ],
    [
      'a package is missing, not root, and no sudo',
      aMachine({ root: false, sudo: 'none' }, { openssl: false }),
      /needs root \(not root, and no sudo\): run as root\n {4}apt-get update && apt-get install -y openssl/,
    ],
    [
      'sudo needs a password and nothing can type it (CI)',
      aMachine({ root: false, sudo: 'password', interactive: false, nodeModules: 'missing' }, { openssl: false }),
      /sudo needs a password and there is no terminal/,
    ],
  ];
  for (const [what, machine, says] of problems) {
    it(`runs nothing and says what to do when ${what}`, function () {
      const plan = planSetup(machine);
      expect(plan.problems).to.have.length(1);
      expect(plan.problems[0]).to.match(says);
      expect(plan.actions).to.deep.equal([]);
    });
  }

  it('says why it installs each package', function () {
    const [action] = planSetup(aMachine({}, { chromium: false })).actions;
    expect(action?.why).to.equal('missing: chromium (the dashboard is tested in a real browser)');
  });

  it('notes a stale linked node_modules instead of emptying it', function () {
    expect(
      planSetup(aMachine({ nodeModules: 'stale', nodeModulesLink: '/elsewhere/node_modules' })).notes[0],
    ).to.contain('/elsewhere/node_modules');
  });
});

describe('infra/setup/plan atLeast', function () {
  const cases: [string, string, boolean][] = [
    ['20.19.0', '>=20.19', true],
    ['20.18.3', '>=20.19', false],
    ['22.1.0', '>=20.19', true],
    ['go1.26', '1.26', true],
    ['go1.26.8', '1.26', true],
    ['go1.25.9', '1.26', false],
    ['go1.100.0', '1.26', true],
  ];
  for (const [version, minimum, expected] of cases) {
    it(`${version} ${expected ? 'is' : 'is not'} at least ${minimum}`, function () {
      expect(atLeast(version, minimum)).to.equal(expected);
    });
  }
});
