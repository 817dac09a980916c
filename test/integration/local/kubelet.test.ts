// The local kubelet on the real control plane: a StatefulSet of Redis pods runs as real
// redis-server processes on their own addresses, with PVC data that outlives pods and nodes,
// probes that follow the process, restarts, garbage collection and node failure.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
  type V1StatefulSet,
} from '@kubernetes/client-node';
import { KubeletControl } from '../../../infra/local/kubelet/control-client.ts';
import { localEnvironment, waitFor, type LocalEnvironment } from '../../support/local-env.ts';
import { isListening, withRedis } from '../../support/redis-server.ts';

const namespace = `kubelet-${process.pid}`;
const outOfService = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };

function statefulSet(name: string, replicas: number): V1StatefulSet {
  return {
    metadata: { name, namespace },
    spec: {
      serviceName: name,
      replicas,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 5,
          containers: [
            {
              name: 'redis',
              image: 'redis:7.2',
              args: ['--appendonly', 'yes'],
              ports: [{ name: 'redis', containerPort: 6379 }],
              readinessProbe: {
                exec: { command: ['redis-cli', 'ping'] },
                periodSeconds: 1,
                timeoutSeconds: 1,
                failureThreshold: 1,
              },
              livenessProbe: { tcpSocket: { port: 'redis' }, periodSeconds: 2, failureThreshold: 3 },
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    },
  };
}

const isReady = (pod: V1Pod | undefined) =>
  pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('infra/local/kubelet', function () {
  this.timeout(180_000);
  let env: LocalEnvironment;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let kubelet: KubeletControl;

  const pod = (name: string) => core.readNamespacedPod({ name, namespace });
  /** The pod once Ready (optionally: a different incarnation than `notUid`). */
  const readyPod = (name: string, notUid?: string) =>
    waitFor(
      async () => {
        const p = await pod(name);
        return isReady(p) && p.metadata?.uid !== notUid ? p : undefined;
      },
      { what: `pod ${name} Ready`, timeout: 120_000 },
    );

  before(async function () {
    env = await localEnvironment();
    const kc = env.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    kubelet = new KubeletControl(env.kubeletControlUrl);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await apps.createNamespacedStatefulSet({ namespace, body: statefulSet('redis', 3) });
  });

  after(async function () {
    for (const node of env?.nodes ?? []) {
      await kubelet.restoreNode(node).catch(() => undefined);
      await env.kubectl(['taint', 'node', node, `${outOfService.key}-`]).catch(() => undefined);
    }
    await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  it('runs a StatefulSet of 3 Redis pods that become Ready and answer PING at their own pod IPs', async function () {
    const pods = await Promise.all(['redis-0', 'redis-1', 'redis-2'].map((n) => readyPod(n)));
    const ips = pods.map((p) => p.status?.podIP ?? '');
    expect(new Set(ips).size).to.equal(3);
    for (const ip of ips) {
      expect(ip.startsWith(`${env.podIpPrefix}.`)).to.equal(true, ip);
      expect(await withRedis(ip, (r) => r.ping())).to.equal('PONG');
    }
    const nodes = new Set(pods.map((p) => p.spec?.nodeName));
    expect([...nodes].every((n) => env.nodes.includes(n ?? ''))).to.equal(true);
  });

  it('restarts a crashed container and counts the restart', async function () {
    const before = await readyPod('redis-0');
    await kubelet.crashPod(namespace, 'redis-0');
    const after = await waitFor(
      async () => {
        const p = await pod('redis-0');
        return (p.status?.containerStatuses?.[0]?.restartCount ?? 0) > 0 && isReady(p) ? p : undefined;
      },
      { what: 'redis-0 restarted and Ready' },
    );
    expect(after.metadata?.uid).to.equal(before.metadata?.uid);
    expect(after.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).to.equal(137);
    expect(await withRedis(after.status?.podIP ?? '', (r) => r.ping())).to.equal('PONG');
  });

  it('restarts a container whose liveness probe fails', async function () {
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'unwell' },
        spec: {
          containers: [
            {
              name: 'redis',
              image: 'redis:7',
              livenessProbe: { exec: { command: ['sh', '-c', 'exit 1'] }, periodSeconds: 1, failureThreshold: 1 },
            },
          ],
        },
      },
    });
    await waitFor(async () => ((await pod('unwell')).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2, {
      what: 'unwell restarted twice',
    });
    await core.deleteNamespacedPod({ name: 'unwell', namespace, gracePeriodSeconds: 0 });
  });

  it('gives containers env from fields and Secrets, configMap and emptyDir volumes, and runs init containers first', async function () {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'conf' }, data: { 'redis.conf': 'maxmemory 12mb\nappendonly no\n' } },
    });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'auth' }, stringData: { password: 'pa55-local' } },
    });
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'configured' },
        spec: {
          volumes: [
            { name: 'config', configMap: { name: 'conf' } },
            { name: 'work', emptyDir: {} },
          ],
          initContainers: [
            {
              name: 'prepare',
              image: 'redis:7',
              command: [
                'sh',
                '-c',
                'cp /config/redis.conf /work/redis.conf && echo "requirepass $PASS" >> /work/redis.conf && echo "$NAME" > /work/name',
              ],
              env: [
                { name: 'PASS', valueFrom: { secretKeyRef: { name: 'auth', key: 'password' } } },
                { name: 'NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              ],
              volumeMounts: [
                { name: 'config', mountPath: '/config' },
                { name: 'work', mountPath: '/work' },
              ],
            },
          ],
          containers: [
            {
              name: 'redis',
              image: 'redis:7',
              args: ['/work/redis.conf'],
              volumeMounts: [{ name: 'work', mountPath: '/work' }],
            },
          ],
        },
      },
    });
    const ready = await readyPod('configured');
    // No readiness probe: Ready as soon as the container started, maybe before redis-server
    // listens (on a busy machine, noticeably so), so the first answer is awaited.
    const maxmemory = await waitFor(
      async () => {
        const redis = new Redis({
          host: ready.status?.podIP ?? '',
          port: 6379,
          password: 'pa55-local',
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        try {
          await redis.connect();
          return await redis.config('GET', 'maxmemory');
        } finally {
          redis.disconnect();
        }
      },
      { what: 'configured answering CONFIG GET' },
    );
    expect(maxmemory).to.deep.equal(['maxmemory', String(12 * 1024 * 1024)]);
    expect(ready.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode).to.equal(0);
    await core.deleteNamespacedPod({ name: 'configured', namespace, gracePeriodSeconds: 0 });
  });

  it('mounts a Secret created after its pod, and rewrites the file when the Secret changes', async function () {
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'secret-reader' },
        spec: {
          volumes: [{ name: 'creds', secret: { secretName: 'later' } }],
          containers: [{ name: 'redis', image: 'redis:7', volumeMounts: [{ name: 'creds', mountPath: '/creds' }] }],
        },
      },
    });
    // The pod waits for its volume, and says which object it waits for.
    await waitFor(
      async () =>
        (await pod('secret-reader')).status?.containerStatuses?.[0]?.state?.waiting?.message?.includes(
          'secret "later" not found',
        ),
      { what: 'secret-reader waiting for the Secret' },
    );
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'later' }, stringData: { password: 'first' } },
    });
    const ready = await readyPod('secret-reader');
    const file = join(env.state.dir, 'kubelet', 'pods', ready.metadata?.uid ?? '', 'volumes', 'creds', 'password');
    expect(await readFile(file, 'utf8')).to.equal('first');
    await core.patchNamespacedSecret(
      { name: 'later', namespace, body: { stringData: { password: 'second' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor(async () => (await readFile(file, 'utf8')) === 'second', { what: 'the volume file rewritten' });
    await core.deleteNamespacedPod({ name: 'secret-reader', namespace, gracePeriodSeconds: 0 });
  });

  it('runs preStop, kills a process that ignores SIGTERM after the grace period, then deletes the pod', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'knredis-prestop-'));
    try {
      await core.createNamespacedPod({
        namespace,
        body: {
          metadata: { name: 'stubborn' },
          spec: {
            terminationGracePeriodSeconds: 2,
            volumes: [{ name: 'out', hostPath: { path: dir } }],
            containers: [
              {
                name: 'sh',
                image: 'busybox:1.36',
                command: ['sh', '-c', 'trap "" TERM; while true; do sleep 1; done'],
                lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo "bye from $NAME" > /out/prestop'] } } },
                env: [{ name: 'NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
                volumeMounts: [{ name: 'out', mountPath: '/out' }],
              },
            ],
          },
        },
      });
      await readyPod('stubborn');
      const pid =
        (await kubelet.pods()).find((p) => p.namespace === namespace && p.name === 'stubborn')?.containers[0]?.pid ?? 0;
      expect(isAlive(pid)).to.equal(true);
      await core.deleteNamespacedPod({ name: 'stubborn', namespace });
      await waitFor(
        async () => {
          try {
            await pod('stubborn');
            return false;
          } catch {
            return true;
          }
        },
        { what: 'pod stubborn deleted' },
      );
      expect(isAlive(pid)).to.equal(false);
      expect(await readFile(join(dir, 'prestop'), 'utf8')).to.equal('bye from stubborn\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a frozen pod not Ready and Ready again once thawed', async function () {
    await readyPod('redis-1');
    await kubelet.freezePod(namespace, 'redis-1');
    try {
      await waitFor(async () => !isReady(await pod('redis-1')), { what: 'redis-1 not Ready while frozen' });
    } finally {
      await kubelet.thawPod(namespace, 'redis-1');
    }
    await readyPod('redis-1');
  });

  it('keeps a key written to a pod with a PVC when the pod is deleted and replaced', async function () {
    const first = await readyPod('redis-2');
    await withRedis(first.status?.podIP ?? '', async (r) => {
      await r.set('survives', 'deletion');
      await r.save();
    });
    await core.deleteNamespacedPod({ name: 'redis-2', namespace });
    const second = await readyPod('redis-2', first.metadata?.uid);
    expect(await withRedis(second.status?.podIP ?? '', (r) => r.get('survives'))).to.equal('deletion');
  });

  it('shows a clear reason for an image it cannot run and keeps serving other pods', async function () {
    await core.createNamespacedPod({
      namespace,
      body: { metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    });
    const waiting = await waitFor(async () => (await pod('web')).status?.containerStatuses?.[0]?.state?.waiting, {
      what: 'web waiting',
    });
    expect(waiting.reason).to.equal('ImageNotRunnableLocally');
    expect(waiting.message).to.contain('nginx:1.27').and.contain('redis');
    expect((await pod('web')).status?.phase).to.equal('Pending');
    await core.createNamespacedPod({
      namespace,
      body: { metadata: { name: 'after-web' }, spec: { containers: [{ name: 'redis', image: 'redis:7' }] } },
    });
    const ready = await readyPod('after-web');
    expect(await withRedis(ready.status?.podIP ?? '', (r) => r.ping())).to.equal('PONG');
    await core.deleteNamespacedPod({ name: 'web', namespace, gracePeriodSeconds: 0 });
    await core.deleteNamespacedPod({ name: 'after-web', namespace, gracePeriodSeconds: 0 });
  });

  it('marks a failed node NotReady and replaces its pods on other nodes with their PVC data', async function () {
    const victim = await readyPod('redis-1');
    const node = victim.spec?.nodeName ?? '';
    await withRedis(victim.status?.podIP ?? '', async (r) => {
      await r.set('survives', 'node-failure');
      await r.save();
    });
    await kubelet.failNode(node);
    // The process died with the node.
    await waitFor(async () => !(await isListening(victim.status?.podIP ?? '', 6379)), { what: 'redis-1 process gone' });
    await waitFor(
      async () => {
        const n = await core.readNode({ name: node });
        return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True');
      },
      { what: `${node} NotReady` },
    );
    // A StatefulSet pod on a dead node stays Terminating until an admin declares the node out of service.
    await env.kubectl(['taint', 'node', node, `${outOfService.key}=${outOfService.value}:${outOfService.effect}`]);
    const replaced = await readyPod('redis-1', victim.metadata?.uid);
    expect(replaced.spec?.nodeName).to.not.equal(node);
    expect(await withRedis(replaced.status?.podIP ?? '', (r) => r.get('survives'))).to.equal('node-failure');
    await kubelet.restoreNode(node);
    await env.kubectl(['taint', 'node', node, `${outOfService.key}-`]);
    await waitFor(
      async () =>
        (await core.readNode({ name: node })).status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      { what: `${node} Ready again` },
    );
  });

  it('garbage-collects the pods of a deleted StatefulSet and their processes exit', async function () {
    const pods = await Promise.all(['redis-0', 'redis-1', 'redis-2'].map((n) => readyPod(n)));
    const ips = pods.map((p) => p.status?.podIP ?? '');
    const pids = (await kubelet.pods())
      .filter((p) => p.namespace === namespace && p.name.startsWith('redis-'))
      .flatMap((p) => p.containers.map((c) => c.pid ?? 0));
    expect(pids).to.have.length(3);
    await apps.deleteNamespacedStatefulSet({ name: 'redis', namespace, propagationPolicy: 'Background' });
    // The garbage collector and each pod's graceful termination queue behind other work on a
    // busy machine: the wait is generous; what is asserted is that it happens.
    await waitFor(
      async () => (await core.listNamespacedPod({ namespace, labelSelector: 'app=redis' })).items.length === 0,
      { what: 'pods of redis deleted', timeout: 150_000 },
    );
    await waitFor(() => pids.every((pid) => !isAlive(pid)), { what: `processes ${pids.join(', ')} gone` });
    for (const ip of ips) expect(await isListening(ip, 6379), ip).to.equal(false);
    expect(
      (await kubelet.pods()).filter((p) => p.namespace === namespace && p.name.startsWith('redis-')),
    ).to.deep.equal([]);
  });

  it('provisions a volume per claim and deletes the volume and its data once the claim is deleted', async function () {
    const claims = (await core.listNamespacedPersistentVolumeClaim({ namespace })).items.filter((c) =>
      c.metadata?.name?.startsWith('data-redis-'),
    );
    expect(claims.map((c) => c.status?.phase)).to.deep.equal(['Bound', 'Bound', 'Bound']);
    const volumes = await Promise.all(claims.map((c) => core.readPersistentVolume({ name: c.spec?.volumeName ?? '' })));
    const paths = volumes.map((v) => v.spec?.hostPath?.path ?? '');
    expect(paths.every((p) => existsSync(p))).to.equal(true);
    for (const c of claims)
      await core.deleteNamespacedPersistentVolumeClaim({ name: c.metadata?.name ?? '', namespace });
    await waitFor(
      async () => {
        const left = (await core.listPersistentVolume()).items.filter((v) =>
          volumes.some((o) => o.metadata?.name === v.metadata?.name),
        );
        return left.length === 0;
      },
      { what: 'released volumes deleted' },
    );
    expect(paths.filter((p) => existsSync(p))).to.deep.equal([]);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
