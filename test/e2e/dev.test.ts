// `npm run dev` as a developer runs it: spawned in its own process group (a terminal's
// foreground job), awaited until it prints where to look; the printed kubeconfig works and the
// sample is Ready; Ctrl-C (SIGINT to the group) stops every process it started.
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readDevState } from '../../infra/local/dev-state.ts';
import { READY_BANNER } from '../../infra/local/dev-summary.ts';
import { envDir } from '../../infra/local/paths.ts';
import { isRunning, processesMentioning } from '../../infra/local/processes.ts';
import { readState } from '../../infra/local/state.ts';
import { DASHBOARD_SECRET, OPERATOR_DEPLOYMENTS, OPERATOR_NAMESPACE } from '../../infra/local/install-operator.ts';
import { ENV_LABEL, podman } from '../../infra/local/kubelet/podman-runtime.ts';
import { stopEnvironment } from '../../infra/local/stop.ts';
import { requireCommand } from '../support/prerequisites.ts';
import { waitFor } from '../support/wait-for.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run dev', function () {
  this.timeout(15 * 60_000);
  const name = `dev-e2e-${process.pid}`;
  const inClusterName = `dev-ic-${process.pid}`;
  let child: ChildProcess | undefined;
  let output = '';
  const exited = () => child?.exitCode !== null || child?.signalCode !== null;

  after(async function () {
    // Whatever the test did, nothing of it stays.
    if (child && !exited())
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    const dev = readDevState(name);
    for (const pid of Object.values(dev?.stack ?? {}))
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    for (const env of [name, inClusterName]) await stopEnvironment(env, { purge: true }).catch(() => {});
  });

  it('prints its flags with --help', async function () {
    const { stdout } = await run('npm', ['run', '-s', 'dev', '--', '--help'], { cwd: repo });
    for (const flag of ['--name', '--nodes', '--keep', '--sample', '--no-sample', '--help'])
      expect(stdout).to.contain(flag);
  });

  /** Spawns `npm run dev` in its own process group and waits for where to look. */
  async function startDev(args: string[]): Promise<void> {
    output = '';
    child = spawn('npm', ['run', 'dev', '--', ...args], {
      cwd: repo,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      output += s;
    });
    child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      output += s;
    });
    await waitFor(
      () => {
        if (exited()) throw new Error(`npm run dev exited early:\n${output}`);
        return output.includes('Ctrl-C stops');
      },
      { what: `'${READY_BANNER}' from npm run dev`, timeout: 12 * 60_000, interval: 500 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
  }

  it('starts Kubernetes, the operator and a Ready sample, prints where to look, and Ctrl-C stops all it started', async function () {
    requireCommand('redis-server');
    requireCommand('openssl');
    await startDev(['--name', name]);

    // 1: what it printed works: the kubeconfig, the built kubectl, the sample is Ready.
    expect(output).to.contain(READY_BANNER).and.contain('/admin/queues');
    const kubeconfig = /kubeconfig {2}(\S+)/.exec(output)?.[1];
    const kubectl = /kubectl {5}(\S+)/.exec(output)?.[1];
    expect(kubeconfig).to.equal(`${envDir(name)}/admin.kubeconfig`);
    const { stdout } = await run(kubectl!, [
      '--kubeconfig',
      kubeconfig!,
      'get',
      'rediscluster',
      'sample',
      '-o',
      'json',
    ]);
    const rc = JSON.parse(stdout) as {
      status: { slotsCovered: number; conditions: { type: string; status: string }[] };
    };
    expect(rc.status.conditions.find((c) => c.type === 'Ready')?.status).to.equal('True');
    expect(rc.status.slotsCovered).to.equal(16384);
    const dashboard = /dashboard {3}(\S+)/.exec(output)![1]!;
    expect((await fetch(dashboard)).status).to.equal(200);

    // 2: what it started, from its state files.
    const dev = readDevState(name)!;
    const env = readState(name)!;
    expect(dev.startedEnvironment).to.equal(true);
    const stackPids = Object.values(dev.stack);
    const envPids = Object.values(env.processes).map((p) => p!.pid);
    expect(stackPids).to.have.length.at.least(5);
    const podServers = processesMentioning(`${env.podIpPrefix}.`);
    expect(podServers, "the sample's redis-servers").to.have.length.at.least(6);
    for (const pid of [dev.pid, ...stackPids, ...envPids]) expect(isRunning(pid), `pid ${pid} runs`).to.equal(true);

    // 3: Ctrl-C: SIGINT to the foreground process group, as a terminal sends it.
    // npm itself dies of the SIGINT at once (as in a terminal); dev.ts stops what it started.
    process.kill(-child!.pid!, 'SIGINT');
    await waitFor(() => !isRunning(dev.pid), { what: `dev (pid ${dev.pid}) to stop`, timeout: 120_000, interval: 200 });
    await waitFor(() => /\] stopped\n/.test(output), { what: "dev's last words", timeout: 5_000 }).catch(() => {});
    expect(output.slice(-1500))
      .to.match(/SIGINT: stopping/)
      .and.match(/\] stopped\n/);
    const alive = [dev.pid, ...stackPids, ...envPids, ...podServers].filter((pid) => isRunning(pid));
    expect(alive, 'processes left running').to.deep.equal([]);
    expect(processesMentioning(`${envDir(name)}/`)).to.deep.equal([]);
    expect(readState(name), `the environment is down; npm run dev printed:\n${output}`).to.equal(undefined);
    expect(readDevState(name), 'dev.json removed').to.equal(undefined);
  });

  it('with --in-cluster, installs the operator from its overlay into a container environment, and Ctrl-C stops it all', async function () {
    requireCommand('podman', "Debian package podman; npm run dev -- --in-cluster's set-up installs it");
    await startDev(['--in-cluster', '--name', inClusterName]);
    const kubeconfig = /kubeconfig {2}(\S+)/.exec(output)![1]!;
    const kubectl = /kubectl {5}(\S+)/.exec(output)![1]!;
    const k = async (...args: string[]) => (await run(kubectl, ['--kubeconfig', kubeconfig, ...args])).stdout;
    // The operator runs in the environment, in its pods, under the overlay's Deployments.
    for (const deployment of OPERATOR_DEPLOYMENTS) {
      const { spec, status } = JSON.parse(
        await k('-n', OPERATOR_NAMESPACE, 'get', 'deployment', deployment, '-o', 'json'),
      ) as { spec: { replicas: number }; status: { readyReplicas?: number } };
      expect(status.readyReplicas, deployment).to.equal(spec.replicas);
    }
    const rc = JSON.parse(await k('get', 'rediscluster', 'sample', '-o', 'json')) as {
      status: { slotsCovered: number; conditions: { type: string; status: string }[] };
    };
    expect(rc.status.conditions.find((c) => c.type === 'Ready')?.status).to.equal('True');
    expect(rc.status.slotsCovered).to.equal(16384);
    // The dashboard it printed answers at its Service, with the token of the Secret it names (never printed).
    const dashboard = /dashboard {3}(\S+)/.exec(output)![1]!;
    const token = Buffer.from(
      await k('-n', OPERATOR_NAMESPACE, 'get', 'secret', DASHBOARD_SECRET, '-o', 'jsonpath={.data.token}'),
      'base64',
    ).toString();
    expect(output).to.not.contain(token);
    expect((await fetch(dashboard, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(200);

    const dev = readDevState(inClusterName)!;
    const state = readState(inClusterName)!;
    expect(state.containerRuntime).to.equal(true);
    const containers = async () =>
      (await podman('ps', '--all', '--quiet', '--filter', `label=${ENV_LABEL}=${inClusterName}`))
        .split('\n')
        .filter(Boolean);
    expect(await containers(), "the environment's containers").to.have.length.at.least(6);
    process.kill(-child!.pid!, 'SIGINT');
    await waitFor(() => !isRunning(dev.pid), { what: `dev (pid ${dev.pid}) to stop`, timeout: 180_000, interval: 200 });
    expect(readState(inClusterName), `the environment is down; npm run dev printed:\n${output}`).to.equal(undefined);
    expect(await containers(), `containers left; npm run dev printed:\n${output}`).to.deep.equal([]);
    expect(processesMentioning(`${envDir(inClusterName)}/`)).to.deep.equal([]);
  });
});
