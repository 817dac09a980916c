// The local kubelet runs the redis_exporter image (the exporter sidecar of a RedisCluster's
// pods) as the binary build-exporter.sh made: it listens on its pod's IP, and `localhost` in its
// REDIS_ADDR is its own pod, as in a real pod's network namespace. The redis-server of the pod
// asks for the Secret's password, and holds a key only this pod has.
import { expect } from 'chai';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { EXPORTER_PORT } from '../../../shared/core/resources/statefulset.ts';
import { counter } from '../../e2e/observe.ts';
import { localEnvironment, waitFor, type LocalEnvironment } from '../../support/local-env.ts';
import { isListening } from '../../support/redis-server.ts';
import { Redis } from 'ioredis';

const namespace = `kubelet-exporter-${process.pid}`;
const password = 'exporter-pa55';
const fromSecret = { valueFrom: { secretKeyRef: { name: 'auth', key: 'password' } } };

function podWithExporter(name: string): V1Pod {
  return {
    metadata: { name, namespace },
    spec: {
      terminationGracePeriodSeconds: 2,
      containers: [
        {
          name: 'redis',
          image: 'redis:7.2',
          args: ['--requirepass', '$(PASS)'],
          env: [{ name: 'PASS', ...fromSecret }],
          readinessProbe: { tcpSocket: { port: 6379 as never }, periodSeconds: 1 },
        },
        {
          // As shared/core/resources/statefulset.ts writes it (without cluster mode: one redis).
          name: 'exporter',
          image: 'oliver006/redis_exporter:v1.62.0',
          env: [
            { name: 'REDIS_ADDR', value: 'redis://localhost:6379' },
            { name: 'REDIS_PASSWORD', ...fromSecret },
          ],
          ports: [{ name: 'metrics', containerPort: EXPORTER_PORT }],
          readinessProbe: { tcpSocket: { port: EXPORTER_PORT as never }, periodSeconds: 1 },
        },
      ],
    },
  };
}

describe('infra/local/kubelet runs the redis_exporter image', function () {
  this.timeout(240_000);
  let env: LocalEnvironment;
  let core: CoreV1Api;

  before(async function () {
    env = await localEnvironment();
    core = env.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'auth' }, stringData: { password } } });
  });
  after(async function () {
    await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  it("serves /metrics on its pod's IP with redis_up 1 for its own pod's redis-server", async function () {
    await core.createNamespacedPod({ namespace, body: podWithExporter('one') });
    await core.createNamespacedPod({ namespace, body: podWithExporter('two') });
    const ips = await Promise.all(
      ['one', 'two'].map((name) =>
        waitFor(
          async () => {
            const p = await core.readNamespacedPod({ name, namespace });
            const ready = p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
            return ready ? p.status?.podIP : undefined;
          },
          { what: `pod ${name} Ready (redis-server and exporter listening)`, timeout: 120_000 },
        ),
      ),
    );
    // Keys only pod one's redis holds: each exporter counts its own pod's.
    const one = new Redis({ host: ips[0], port: 6379, password, lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await one.connect();
      await one.mset('a', '1', 'b', '2');
    } finally {
      one.disconnect();
    }
    for (const [ip, keys] of [
      [ips[0]!, 2],
      [ips[1]!, 0],
    ] as const) {
      const metrics = `http://${ip}:${EXPORTER_PORT}/metrics`;
      expect(await counter(metrics, 'redis_up')).to.equal(1, metrics);
      expect(await counter(metrics, 'redis_db_keys')).to.equal(keys, metrics);
    }
    // Not on the host's loopback address: another pod's exporter would take the same port there.
    expect(await isListening('127.0.0.1', EXPORTER_PORT)).to.equal(false);
  });
});
