// The local kubelet's network and reporting faults on the real control plane: a partition cuts
// exactly the pairs of addresses across its groups (a pod's own connections leave from its pod
// IP) and heal removes every rule; a node that stops reporting goes NotReady while its pods keep
// serving, and reports again once restored.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { partitionTag } from '../../../infra/local/kubelet/partition.ts';
import { localEnvironment, waitFor, type LocalEnvironment } from '../../support/local-env.ts';
import { withRedis } from '../../support/redis-server.ts';

const namespace = `kubelet-faults-${process.pid}`;

/** True when a TCP connection from `from` (a local address) to host:6379 opens within 1 s. */
function reaches(from: string, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: 6379, localAddress: from, timeout: 1_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

const ourRules = (env: LocalEnvironment) =>
  execFileSync('iptables', ['-w', '-S', 'INPUT'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.split(' ').includes(partitionTag(env.name)));

function redisPod(name: string, nodeName?: string): V1Pod {
  return {
    metadata: { name, namespace },
    spec: {
      terminationGracePeriodSeconds: 1,
      ...(nodeName ? { nodeName } : {}),
      containers: [
        {
          name: 'redis',
          image: 'redis:7.2',
          args: ['--save', '', '--protected-mode', 'no'],
          readinessProbe: {
            exec: { command: ['redis-cli', 'ping'] },
            periodSeconds: 1,
            timeoutSeconds: 1,
            failureThreshold: 1,
          },
        },
      ],
    },
  };
}

describe('infra/local/kubelet faults: partition and a node that stops reporting', function () {
  this.timeout(180_000);
  let env: LocalEnvironment;
  let core: CoreV1Api;

  const readyIp = (name: string) =>
    waitFor(
      async () => {
        const p = await core.readNamespacedPod({ name, namespace });
        return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          ? p.status?.podIP
          : undefined;
      },
      { what: `pod ${name} Ready`, timeout: 120_000 },
    );

  before(async function () {
    env = await localEnvironment();
    core = env.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  });

  after(async function () {
    await env?.kubelet.heal().catch(() => undefined);
    for (const node of env?.nodes ?? []) await env.kubelet.restoreNode(node).catch(() => undefined);
    await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  it('cuts every pair across the groups, both ways, on every port, and heals', async function () {
    for (const name of ['a', 'b', 'c']) await core.createNamespacedPod({ namespace, body: redisPod(name) });
    const [a = '', b = '', c = ''] = await Promise.all(['a', 'b', 'c'].map(readyIp));
    // A replica's link goes from its own address: the master lists the pod IP, not 127.0.0.1
    // (which is also why these password-less pods turn protected mode off, as the image does).
    await withRedis(b, (r) => r.replicaof(a, '6379'));
    await waitFor(() => withRedis(a, async (r) => String(await r.client('LIST')).includes(`addr=${b}:`)), {
      what: `a sees b's replication link from ${b}`,
    });

    const rules = await env.kubelet.partition([
      [`${namespace}/a`, '127.0.0.1'],
      [`${namespace}/b`, c],
    ]);
    expect(rules).to.equal(8);
    expect(await reaches(b, a), 'b -> a').to.equal(false);
    expect(await reaches(a, b), 'a -> b').to.equal(false);
    expect(await reaches('127.0.0.1', c), 'host -> c').to.equal(false);
    expect(await reaches('127.0.0.1', a), 'host -> a, same side').to.equal(true);
    expect(await reaches(b, c), 'b -> c, same side').to.equal(true);
    // The cluster bus port (client port + 10000) is cut too: all traffic between the pair.
    const bus = await new Promise<boolean>((resolve) => {
      const s = connect({ host: a, port: 16379, localAddress: b, timeout: 1_000 });
      s.once('timeout', () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
    });
    expect(bus, 'b -> a:16379 (refused means the packet got through)').to.equal(false);

    expect(await env.kubelet.heal()).to.equal(8);
    expect(ourRules(env)).to.deep.equal([]);
    expect(await reaches(b, a), 'b -> a healed').to.equal(true);
    expect(await reaches('127.0.0.1', c), 'host -> c healed').to.equal(true);
  });

  it('refuses a partition with an unknown pod and leaves no rule behind', async function () {
    const refused = await env.kubelet.partition([['127.0.0.1'], [`${namespace}/nobody`]]).then(
      () => 'made',
      (e: Error) => e.message,
    );
    expect(refused).to.contain(`pod ${namespace}/nobody has no address`);
    expect(ourRules(env)).to.deep.equal([]);
  });

  it('marks a node that stops reporting NotReady while its pod keeps serving, and Ready again once restored', async function () {
    const node = env.nodes[env.nodes.length - 1]!;
    await core.createNamespacedPod({ namespace, body: redisPod('silent', node) });
    const ip = await readyIp('silent');
    await withRedis(ip, (r) => r.set('k', 'v'));
    const nodeReady = async () =>
      (await core.readNode({ name: node })).status?.conditions?.find((c) => c.type === 'Ready')?.status;
    await env.kubelet.stopReporting(node);
    try {
      await waitFor(async () => (await nodeReady()) !== 'True', { what: `${node} NotReady`, timeout: 60_000 });
      // The node controller marks the pod not Ready; its process still serves.
      await waitFor(
        async () =>
          (await core.readNamespacedPod({ name: 'silent', namespace })).status?.conditions?.some(
            (c) => c.type === 'Ready' && c.status !== 'True',
          ),
        { what: 'pod silent marked not Ready' },
      );
      expect(await withRedis(ip, (r) => r.get('k'))).to.equal('v');
    } finally {
      await env.kubelet.restoreNode(node);
    }
    await waitFor(async () => (await nodeReady()) === 'True', { what: `${node} Ready again` });
    expect(await readyIp('silent')).to.equal(ip);
  });
});
