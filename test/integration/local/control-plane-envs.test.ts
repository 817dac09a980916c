// Local environments as processes: two started at once do not collide, `up` of a running
// one is idempotent, a crashed one is cleaned up by the next `up`, and `down` leaves nothing.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { KubeConfig, VersionApi } from '@kubernetes/client-node';
import { startEnvironment, stopEnvironment, type Environment } from '../../../infra/local/environment.ts';
import { isRunning } from '../../../infra/local/processes.ts';
import { statePath, type EnvState } from '../../../infra/local/state.ts';
import { leftovers } from '../../../infra/local/stop.ts';

function pids(state: EnvState): number[] {
  return Object.values(state.processes).map((p) => p!.pid);
}

async function versionOf(state: EnvState): Promise<string | undefined> {
  const kc = new KubeConfig();
  kc.loadFromFile(state.kubeconfig);
  return (await kc.makeApiClient(VersionApi).getCode()).gitVersion;
}

describe('infra/local environments', function () {
  this.timeout(300_000);
  // One name a prefix of the other: stopping the first must not touch the second.
  const names = [`envs-${process.pid}`, `envs-${process.pid}-b`];
  let a: Environment;
  let b: Environment;

  before(async function () {
    const start = (name: string) => startEnvironment({ name, nodes: 1, owner: process.pid });
    [a, b] = await Promise.all([start(names[0]!), start(names[1]!)]);
  });

  after(async function () {
    for (const name of names) await stopEnvironment(name, { purge: true });
  });

  it('gives two environments started at once distinct ports, dirs and pod IP prefixes, and both answer', async function () {
    expect(a.dir).to.not.equal(b.dir);
    expect(a.podIpPrefix).to.not.equal(b.podIpPrefix);
    const portsA = Object.values(a.ports);
    const portsB = Object.values(b.ports);
    expect(new Set([...portsA, ...portsB]).size).to.equal(portsA.length + portsB.length);
    expect(await versionOf(a)).to.match(/^v1\./);
    expect(await versionOf(b)).to.match(/^v1\./);
  });

  it('says an environment is already up and starts nothing when up is run again', async function () {
    const again = await startEnvironment({ name: a.name, nodes: 1 });
    expect(again.alreadyUp).to.equal(true);
    expect(pids(again)).to.deep.equal(pids(a));
  });

  it('cleans up and starts afresh when the processes of an environment died', async function () {
    for (const pid of pids(b)) process.kill(-pid, 'SIGKILL');
    const restarted = await startEnvironment({ name: b.name, nodes: 1, owner: process.pid });
    expect(restarted.alreadyUp).to.equal(false);
    expect(pids(restarted)).to.not.include.members(pids(b));
    expect(await versionOf(restarted)).to.match(/^v1\./);
    b = restarted;
  });

  it('restarts an environment when up finds one of its processes exited', async function () {
    process.kill(a.processes['kube-scheduler']!.pid, 'SIGKILL');
    const restarted = await startEnvironment({ name: a.name, nodes: 1, owner: process.pid });
    expect(restarted.alreadyUp).to.equal(false);
    expect(pids(a).filter((pid) => isRunning(pid, `${a.dir}/`))).to.deep.equal([]);
    expect(await versionOf(restarted)).to.match(/^v1\./);
    a = restarted;
  });

  it('stops every process of an environment and removes its state on down', async function () {
    const result = await stopEnvironment(a.name);
    expect(result.found).to.equal(true);
    expect(result.stopped).to.include.members(pids(a));
    expect(pids(a).filter((pid) => isRunning(pid))).to.deep.equal([]);
    expect(leftovers(a)).to.deep.equal([]);
    expect(existsSync(statePath(a.name))).to.equal(false);
    // The other environment is untouched.
    expect(await versionOf(b)).to.match(/^v1\./);
  });
});
