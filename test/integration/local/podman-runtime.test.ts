// The local kubelet's container runtime (infra/local/kubelet/podman-runtime.ts) on real podman and
// runc, with the Redis images infra/image/build-redis.sh builds: a pod has its own network
// namespace and address on its environment's bridge, its containers share its localhost, and
// what a pod spec asks of a container (user, read-only mounts and root, capabilities, memory) is
// what runc applies.
import { expect } from 'chai';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  ENV_LABEL,
  createSandbox,
  ensureNetwork,
  execByRuntime,
  execInContainer,
  podman,
  removeEnvironment,
  startContainer,
  type ContainerProcess,
  type ContainerSpec,
} from '../../../infra/local/kubelet/podman-runtime.ts';
import { processesMentioning } from '../../../infra/local/processes.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { waitFor } from '../../support/wait-for.ts';

const env = `podman-runtime-${process.pid}`;
const REDIS_IMAGE = 'docker.io/library/redis:7.2';
const EXPORTER_IMAGE = 'docker.io/oliver006/redis_exporter:v1.62.0';

/** A /16 no other podman network holds (other environments and test runs make theirs). */
async function networkOfItsOwn(): Promise<{ name: string; prefix: string; gateway: string }> {
  const name = `knredis-${env}`;
  for (let second = 60; second < 100; second++) {
    try {
      const { gateway } = await ensureNetwork({ name, subnet: `10.${second}.0.0/16`, env });
      return { name, prefix: `10.${second}`, gateway };
    } catch (error) {
      if (!/already (used|in use)|overlap/i.test((error as Error).message)) throw error;
    }
  }
  throw new Error('no free 10.x.0.0/16 for a podman network between 10.60 and 10.99');
}

describe('the local kubelet: pods as OCI containers (podman, runc)', function () {
  this.timeout(120_000);
  let dir: string;
  let network: { name: string; prefix: string; gateway: string };
  const started: ContainerProcess[] = [];
  let next = 1;

  /** A sandbox (a pod) at the next address of the network. */
  async function pod(name: string): Promise<{ sandbox: string; ip: string }> {
    const ip = `${network.prefix}.1.${next++}`;
    const sandbox = `${env}_${name}`;
    await createSandbox({ name: sandbox, network: network.name, ip, hostname: name, labels: { [ENV_LABEL]: env } });
    return { sandbox, ip };
  }

  async function container(
    sandbox: string,
    name: string,
    spec: Partial<ContainerSpec> & Pick<ContainerSpec, 'image'>,
  ): Promise<ContainerProcess> {
    const proc = await startContainer({
      name: `${sandbox}_${name}`,
      sandbox,
      env: {},
      mounts: [],
      labels: { [ENV_LABEL]: env },
      logFile: join(dir, sandbox, `${name}.log`),
      ...spec,
    });
    started.push(proc);
    return proc;
  }

  const pong = async (host: string) => {
    const client = new Redis({
      host,
      port: 6379,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await client.connect();
      return await client.ping();
    } catch {
      return undefined;
    } finally {
      client.disconnect();
    }
  };

  before(async function () {
    requireCommand('podman', 'Debian package podman; npm test installs it');
    requireCommand('runc', 'Debian package runc; npm test installs it');
    for (const [image, script] of [
      [REDIS_IMAGE, 'infra/image/build-redis.sh'],
      [EXPORTER_IMAGE, 'infra/image/build-exporter.sh'],
    ])
      await podman('image', 'exists', image!).catch(() => {
        throw new Error(`prerequisite missing: the image ${image} is not built (run ${script})`);
      });
    dir = await mkdtemp(join(tmpdir(), 'knredis-podman-runtime-'));
    await removeEnvironment(env);
    network = await networkOfItsOwn();
  });
  after(async () => {
    await removeEnvironment(env).catch((error: Error) => console.error(error.message));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('gives a pod its own address, hostname and localhost, shared by its containers, the host reachable at the gateway', async () => {
    const { sandbox, ip } = await pod('net-0');
    await container(sandbox, 'redis', { image: REDIS_IMAGE, args: ['--protected-mode', 'no'], user: '999:999' });
    await waitFor(async () => (await pong(ip)) === 'PONG', { what: `redis-server answering at ${ip}` });
    // A second container of the pod reaches the first at localhost, as in a pod's network namespace.
    const side = await container(sandbox, 'side', {
      image: REDIS_IMAGE,
      command: ['sh', '-c', 'hostname; redis-cli -h localhost ping; sleep 3600'],
    });
    await waitFor(
      async () => (await readFile(join(dir, sandbox, 'side.log'), 'utf8').catch(() => '')).includes('PONG'),
      {
        what: 'the side container reaching redis at localhost',
      },
    );
    const log = await readFile(join(dir, sandbox, 'side.log'), 'utf8');
    expect(log).to.contain(' stdout F net-0');
    expect(side.containerID).to.match(/^podman:\/\/[0-9a-f]{64}$/);
    // The host, at the network's gateway: a listener there answers the pod as Redis would.
    const host = createServer((socket) => socket.once('data', () => socket.end('+PONG\r\n')));
    await new Promise<void>((resolve) => host.listen(0, network.gateway, resolve));
    try {
      const { port } = host.address() as AddressInfo;
      const reached = await execInContainer(
        `${sandbox}_side`,
        ['redis-cli', '-h', network.gateway, '-p', String(port), 'ping'],
        10_000,
      );
      expect(reached.output.trim()).to.equal('PONG');
    } finally {
      host.close();
    }
  });

  it("runs the exporter sidecar's image beside Redis in a pod: as its image's user, scraping Redis at localhost", async () => {
    const { sandbox, ip } = await pod('exporter-0');
    await container(sandbox, 'redis', {
      image: REDIS_IMAGE,
      args: ['--protected-mode', 'no', '--requirepass', 'm0n'],
      user: '999:999',
    });
    // As a RedisCluster's pod runs it: the address and password in its environment, the root read-only.
    await container(sandbox, 'exporter', {
      image: EXPORTER_IMAGE,
      env: { REDIS_ADDR: 'redis://localhost:6379', REDIS_PASSWORD: 'm0n' },
      readOnlyRootFilesystem: true,
      dropCapabilities: ['ALL'],
    });
    const metrics = async () => {
      const res = await fetch(`http://${ip}:9121/metrics`).catch(() => undefined);
      return res?.ok ? res.text() : '';
    };
    await waitFor(async () => /^redis_up 1$/m.test(await metrics()), { what: 'the exporter reporting redis_up 1' });
    const text = await metrics();
    expect(text).to.match(/^redis_exporter_build_info\{.*version="v1\.62\.0".*\} 1$/m);
    // The image's own user (59000, as upstream's), not root: nothing else sets one here.
    const user = await podman('inspect', '--format', '{{.Config.User}}', `${sandbox}_exporter`);
    expect(user.trim()).to.equal('59000:59000');
  });

  it('runs as the given user, with read-only mounts and root file system, and no capability', async () => {
    const conf = join(dir, 'conf');
    await mkdir(conf, { recursive: true });
    await writeFile(join(conf, 'redis.conf'), 'port 6379\nprotected-mode no\nsave ""\nappendonly no\n');
    const data = await mkdtemp(join(dir, 'data-'));
    await chown(data, 999, 999);
    const { sandbox, ip } = await pod('secure-0');
    await container(sandbox, 'redis', {
      image: REDIS_IMAGE,
      args: ['/conf/redis.conf'],
      user: '999:999',
      mounts: [
        { source: conf, target: '/conf', readOnly: true },
        { source: data, target: '/data', readOnly: false },
      ],
      readOnlyRootFilesystem: true,
      dropCapabilities: ['ALL'],
      noNewPrivileges: true,
    });
    await waitFor(async () => (await pong(ip)) === 'PONG', { what: `redis-server answering at ${ip}` });
    const name = `${sandbox}_redis`;
    expect((await execInContainer(name, ['id', '-u'], 10_000)).output.trim()).to.equal('999');
    const toMount = await execInContainer(name, ['sh', '-c', 'echo x > /conf/x'], 10_000);
    expect(toMount.exitCode, 'a write to the read-only mount').to.not.equal(0);
    expect(toMount.output).to.match(/read-only file system/i);
    const toRoot = await execInContainer(name, ['sh', '-c', 'echo x > /etc/x'], 10_000);
    expect(toRoot.exitCode, 'a write to the read-only root').to.not.equal(0);
    expect(
      (await execInContainer(name, ['sh', '-c', 'echo x > /data/x && cat /data/x'], 10_000)).output.trim(),
    ).to.equal('x');
    const caps = await execInContainer(name, ['sh', '-c', "grep '^CapEff' /proc/1/status"], 10_000);
    expect(caps.output.trim()).to.match(/^CapEff:\s+0+$/);
  });

  it("runs a probe's command by the runtime, as the container's user, in its directory, and stops one that times out", async () => {
    const { sandbox } = await pod('exec-0');
    const redis = await container(sandbox, 'redis', {
      image: REDIS_IMAGE,
      user: '999:999',
      env: { PROBE_SEES: 'the container env' },
    });
    const inIt = await execByRuntime(redis.containerID, ['sh', '-c', 'id -u; pwd; echo "$PROBE_SEES"'], 10_000);
    expect(inIt.exitCode, inIt.output).to.equal(0);
    expect(inIt.output.trim().split('\n')).to.deep.equal(['999', '/data', 'the container env']);
    expect((await execByRuntime(redis.containerID, ['sh', '-c', 'exit 4'], 10_000)).exitCode).to.equal(4);
    // Past its timeout the command itself is stopped, not only the runtime's client.
    const slow = await execByRuntime(redis.containerID, ['sleep', '4321'], 300);
    expect(slow.timedOut).to.equal(true);
    await waitFor(() => processesMentioning('sleep 4321').length === 0, { what: 'the timed-out command gone' });
  });

  it('reports the exit code, kills on a signal, and holds a container to its memory limit', async () => {
    const { sandbox } = await pod('exit-0');
    const three = await container(sandbox, 'three', { image: REDIS_IMAGE, command: ['sh', '-c', 'exit 3'] });
    expect((await three.exited).code).to.equal(3);
    expect(three.isAlive()).to.equal(false);

    const sleeper = await container(sandbox, 'sleeper', { image: REDIS_IMAGE, command: ['sleep', '3600'] });
    expect(sleeper.pid).to.be.greaterThan(0);
    expect(sleeper.signal('SIGKILL')).to.equal(true);
    expect((await sleeper.exited).code).to.equal(137);

    // A shell variable of 64 MiB: killed under a 16 MiB limit, kept without one. (podman reports
    // OOMKilled only where conmon sees the cgroup's OOM event, which it does not on this
    // cgroup-v1 host: the exit code, 137, is what tells here.)
    const fill = 'x=$(head -c 67108864 /dev/zero | tr "\\0" a); echo kept ${#x}';
    const limited = await container(sandbox, 'limited', {
      image: REDIS_IMAGE,
      command: ['sh', '-c', fill],
      memoryBytes: 16 << 20,
    });
    expect((await limited.exited).code).to.equal(137);
    const free = await container(sandbox, 'free', { image: REDIS_IMAGE, command: ['sh', '-c', fill] });
    expect((await free.exited).code).to.equal(0);
    expect(await readFile(join(dir, sandbox, 'free.log'), 'utf8')).to.contain('kept 67108864');
  });

  it('runs a command in a container, and gives up on one that outlives its timeout', async () => {
    const { sandbox } = await pod('exec-0');
    await container(sandbox, 'redis', { image: REDIS_IMAGE, args: ['--protected-mode', 'no'], user: '999:999' });
    const name = `${sandbox}_redis`;
    await waitFor(async () => (await execInContainer(name, ['redis-cli', 'ping'], 10_000)).output.trim() === 'PONG', {
      what: 'PONG through podman exec',
    });
    const slow = await execInContainer(name, ['sleep', '30'], 500);
    expect(slow.timedOut).to.equal(true);
  });

  it("removes every pod and the network of an environment, and leaves others' alone", async () => {
    await pod('gone-0');
    await removeEnvironment(env);
    expect(await podman('pod', 'ps', '--quiet', '--filter', `label=${ENV_LABEL}=${env}`)).to.equal('');
    expect(await podman('network', 'ls', '--quiet', '--filter', `label=${ENV_LABEL}=${env}`)).to.equal('');
    expect(await podman('network', 'exists', 'podman').then(() => true)).to.equal(true);
  });
});
