// The local kubelet with --runtime container: pods run as OCI containers (podman, runc) from the
// images infra/image/build-redis.sh builds, each pod in its own network namespace at a 10.X
// address, which EndpointSlices accept (they refuse the process runtime's loopback addresses).
// A StatefulSet of Redis pods as the operator writes them in spirit: a non-root user, fsGroup on
// the claim, a read-only root, no capability, a memory limit, a password from a Secret, an exec
// readiness probe, and data that outlives its pod.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AppsV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1Pod,
} from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { KubeletControl } from '../../../infra/local/kubelet/control-client.ts';
import { execInContainer, podman } from '../../../infra/local/kubelet/podman-runtime.ts';
import { startEnvironment, stopEnvironment, type Environment } from '../../../infra/local/environment.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { waitFor } from '../../support/wait-for.ts';

const name = `containers-${process.pid}`;
const namespace = 'pods-as-containers';
const password = 'containers-pa55';
const REDIS_IMAGE = 'redis:7.2';

const podReady = (pod: V1Pod | undefined) =>
  !pod?.metadata?.deletionTimestamp && pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

describe('the local kubelet with --runtime container: pods as OCI containers', function () {
  this.timeout(300_000);
  let env: Environment;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let discovery: DiscoveryV1Api;

  const kc = () => {
    const config = new KubeConfig();
    config.loadFromFile(env.kubeconfig);
    return config;
  };
  const pod = (podName: string) =>
    core.readNamespacedPod({ name: podName, namespace }).catch(() => undefined) as Promise<V1Pod | undefined>;
  /** The podman containers of a pod (its infra container too), by its uid. */
  const containersOf = async (uid: string) =>
    (await podman('ps', '--all', '--format', '{{.Names}}', '--filter', `label=knredis.pod-uid=${uid}`))
      .split('\n')
      .filter(Boolean);
  const client = (host: string, connectTimeout = 10_000) =>
    new Redis({
      host,
      port: 6379,
      password,
      connectTimeout,
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
    }).on('error', () => {
      /* a refused or cut connection answers the command that asked */
    });

  before(async function () {
    requireCommand('podman', 'Debian package podman; npm test installs it');
    requireCommand('runc', 'Debian package runc; npm test installs it');
    try {
      await podman('image', 'exists', `docker.io/library/${REDIS_IMAGE}`);
    } catch {
      throw new Error(`prerequisite missing: the image ${REDIS_IMAGE} is not built (run infra/image/build-redis.sh)`);
    }
    env = await startEnvironment({ name, nodes: 2, owner: process.pid, runtime: 'container' });
    core = kc().makeApiClient(CoreV1Api);
    apps = kc().makeApiClient(AppsV1Api);
    discovery = kc().makeApiClient(DiscoveryV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'auth' }, stringData: { password } },
    });
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'conf' }, data: { 'redis.conf': 'port 6379\nprotected-mode no\nappendonly no\n' } },
    });
  });

  after(async function () {
    if (env) await stopEnvironment(name, { purge: true });
  });

  it('runs a StatefulSet of Redis pods as containers at 10.X addresses, which their EndpointSlice lists', async () => {
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'redis' },
        spec: { clusterIP: 'None', selector: { app: 'redis' }, ports: [{ name: 'redis', port: 6379 }] },
      },
    });
    await apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name: 'redis' },
        spec: {
          serviceName: 'redis',
          replicas: 2,
          selector: { matchLabels: { app: 'redis' } },
          template: {
            metadata: { labels: { app: 'redis' } },
            spec: {
              terminationGracePeriodSeconds: 5,
              securityContext: {
                runAsNonRoot: true,
                runAsUser: 999,
                runAsGroup: 999,
                fsGroup: 999,
                fsGroupChangePolicy: 'OnRootMismatch',
              },
              volumes: [{ name: 'conf', configMap: { name: 'conf' } }],
              containers: [
                {
                  name: 'redis',
                  image: REDIS_IMAGE,
                  command: ['sh', '-c', 'exec redis-server /conf/redis.conf --requirepass "$PASSWORD" --dir /data'],
                  env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'auth', key: 'password' } } }],
                  ports: [{ name: 'redis', containerPort: 6379 }],
                  volumeMounts: [
                    { name: 'conf', mountPath: '/conf', readOnly: true },
                    { name: 'data', mountPath: '/data' },
                  ],
                  securityContext: {
                    allowPrivilegeEscalation: false,
                    readOnlyRootFilesystem: true,
                    capabilities: { drop: ['ALL'] },
                  },
                  resources: { limits: { memory: '128Mi', cpu: '500m' } },
                  readinessProbe: {
                    exec: { command: ['sh', '-c', 'redis-cli -a "$PASSWORD" --no-auth-warning ping | grep -q PONG'] },
                    periodSeconds: 1,
                  },
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
      },
    });
    const pods = await waitFor(
      async () => {
        const all = await Promise.all(['redis-0', 'redis-1'].map(pod));
        return all.every(podReady) ? (all as V1Pod[]) : undefined;
      },
      { what: 'redis-0 and redis-1 Ready', timeout: 180_000 },
    );
    const prefix = `10.${env.podIpPrefix.split('.')[1]}.`;
    const ips = pods.map((p) => p.status?.podIP ?? '');
    for (const ip of ips) expect(ip.startsWith(prefix), ip).to.equal(true);
    // The container's id, and the id of the image it runs, as a CRI runtime reports them.
    const imageId = await podman('image', 'inspect', '--format', '{{.Id}}', REDIS_IMAGE);
    for (const p of pods) {
      expect(p.status?.containerStatuses?.[0]?.containerID).to.match(/^podman:\/\/[0-9a-f]{64}$/);
      expect(p.status?.containerStatuses?.[0]?.imageID).to.equal(`sha256:${imageId}`);
    }
    // The endpoints the process runtime never gets: its 127.X addresses are refused.
    const listed = await waitFor(
      async () => {
        const slices = await discovery.listNamespacedEndpointSlice({
          namespace,
          labelSelector: 'kubernetes.io/service-name=redis',
        });
        const ready = slices.items.flatMap((s) =>
          (s.endpoints ?? []).filter((e) => e.conditions?.ready).flatMap((e) => e.addresses),
        );
        return ready.length === 2 ? ready.sort() : undefined;
      },
      { what: 'the EndpointSlice of Service redis listing both pods' },
    );
    expect(listed).to.deep.equal([...ips].sort());
    // What the pod spec asked, as runc applied it.
    const container = (await containersOf(pods[0]!.metadata!.uid!)).find((c) => c.endsWith('_redis'));
    const inspected = JSON.parse(await podman('inspect', container!)) as {
      Config: { User: string };
      HostConfig: { Memory: number; ReadonlyRootfs: boolean; CapDrop: string[]; SecurityOpt: string[] };
    }[];
    expect(inspected[0]?.Config.User).to.equal('999:999');
    expect(inspected[0]?.HostConfig.Memory).to.equal(128 * 2 ** 20);
    expect(inspected[0]?.HostConfig.ReadonlyRootfs).to.equal(true);
    expect(inspected[0]?.HostConfig.SecurityOpt).to.include('no-new-privileges');
  });

  it('keeps what a pod saved on its claim (written as its own user, by fsGroup) across its replacement', async () => {
    const before = (await pod('redis-0'))!;
    const redis = client(before.status!.podIP!);
    try {
      await redis.connect();
      await redis.set('kept', 'across a new pod');
      expect(await redis.save()).to.equal('OK');
    } finally {
      redis.disconnect();
    }
    await core.deleteNamespacedPod({ name: 'redis-0', namespace });
    const after = await waitFor(
      async () => {
        const p = await pod('redis-0');
        return p?.metadata?.uid !== before.metadata?.uid && podReady(p) ? p : undefined;
      },
      { what: 'redis-0 replaced and Ready', timeout: 180_000 },
    );
    const again = client(after.status!.podIP!);
    try {
      await again.connect();
      expect(await again.get('kept')).to.equal('across a new pod');
    } finally {
      again.disconnect();
    }
    // The old pod's containers went with it.
    expect(await containersOf(before.metadata!.uid!)).to.deep.equal([]);
  });

  it("resolves Services and pods' names with the cluster DNS, from inside a pod, as a client in a cluster does", async () => {
    const [zero, one] = await Promise.all([pod('redis-0'), pod('redis-1')]);
    const inOne = (await containersOf(one!.metadata!.uid!)).find((c) => c.endsWith('_redis'))!;
    const run = async (command: string) => (await execInContainer(inOne, ['sh', '-c', command], 20_000)).output.trim();
    // The StatefulSet pod's own name under its headless Service, by the search path.
    expect((await run('getent hosts redis-0.redis')).split(/\s+/)[0]).to.equal(zero!.status!.podIP);
    // The headless Service: every ready pod's address.
    expect((await run('getent ahostsv4 redis | cut -d" " -f1 | sort -u')).split('\n').sort()).to.deep.equal(
      [zero!.status!.podIP, one!.status!.podIP].sort(),
    );
    // The fully qualified name, and a client connecting by name.
    expect((await run(`getent hosts redis-0.redis.${namespace}.svc.cluster.local`)).split(/\s+/)[0]).to.equal(
      zero!.status!.podIP,
    );
    // A client's own lookup (A and AAAA) may meet a resolver that is slow on a busy machine
    // (EAI_AGAIN, as in any cluster): it answers once it can.
    await waitFor(
      async () =>
        (await run('redis-cli -h redis-0.redis -a "$PASSWORD" --no-auth-warning ping')) === 'PONG' || undefined,
      { what: 'redis-cli reaching redis-0.redis by name', timeout: 60_000 },
    );
  });

  it("routes a Service's ClusterIP to its ready pods, from inside a pod by name and from the host", async () => {
    const service = await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'redis-any' },
        spec: { selector: { app: 'redis' }, ports: [{ name: 'redis', port: 7000, targetPort: 'redis' as never }] },
      },
    });
    const clusterIP = service.spec?.clusterIP ?? '';
    expect(clusterIP.startsWith(`172.16.${env.podIpPrefix.split('.')[1]}.`), clusterIP).to.equal(true);
    const one = await pod('redis-1');
    const inOne = (await containersOf(one!.metadata!.uid!)).find((c) => c.endsWith('_redis'))!;
    // The Service port (7000) to the pods' named port (6379), through the cluster DNS's answer.
    const byName = await waitFor(
      async () => {
        const out = await execInContainer(
          inOne,
          ['sh', '-c', 'timeout 2 redis-cli -h redis-any -p 7000 -a "$PASSWORD" --no-auth-warning ping'],
          10_000,
        );
        return out.output.trim() === 'PONG' && out.output.trim();
      },
      { what: 'PONG from redis-any:7000 inside redis-1' },
    );
    expect(byName).to.equal('PONG');
    const fromHost = new Redis({ host: clusterIP, port: 7000, password, lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await fromHost.connect();
      expect(await fromHost.ping()).to.equal('PONG');
    } finally {
      fromHost.disconnect();
    }
  });

  it('freezes, thaws and crashes a pod through the control API: NotReady while paused, restarted after a kill', async () => {
    const kubelet = new KubeletControl(env.kubeletControlUrl);
    const ready = (want: boolean) => async () => {
      const p = await pod('redis-1');
      return (!!podReady(p) === want && p) || undefined;
    };
    await waitFor(ready(true), { what: 'redis-1 Ready' });
    await kubelet.freezePod(namespace, 'redis-1');
    await waitFor(ready(false), { what: 'redis-1 not Ready while paused' });
    await kubelet.thawPod(namespace, 'redis-1');
    const thawed = await waitFor(ready(true), { what: 'redis-1 Ready again once thawed' });
    const restarts = thawed.status?.containerStatuses?.[0]?.restartCount ?? 0;
    await kubelet.crashPod(namespace, 'redis-1');
    const crashed = await waitFor(
      async () => {
        const p = await pod('redis-1');
        return podReady(p) && (p?.status?.containerStatuses?.[0]?.restartCount ?? 0) > restarts ? p : undefined;
      },
      { what: 'redis-1 restarted after the kill and Ready' },
    );
    expect(crashed.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).to.equal(137);
    expect(crashed.metadata?.uid, 'the same pod, its container restarted').to.equal(thawed.metadata?.uid);
  });

  it('cuts a pod off from another pod and from the host, across the bridge, until healed', async () => {
    const kubelet = new KubeletControl(env.kubeletControlUrl);
    const [zero, one] = await Promise.all([pod('redis-0'), pod('redis-1')]);
    const zeroIP = zero!.status!.podIP!;
    const oneName = (await containersOf(one!.metadata!.uid!)).find((c) => c.endsWith('_redis'))!;
    // redis-1 asks redis-0 from inside its container; the host asks redis-0 directly.
    const fromOne = async () =>
      (
        await execInContainer(
          oneName,
          ['sh', '-c', `timeout 2 redis-cli -h ${zeroIP} -a "$PASSWORD" --no-auth-warning ping`],
          10_000,
        )
      ).output.trim();
    const fromHost = async () => {
      const redis = client(zeroIP, 1000);
      try {
        await redis.connect();
        return await redis.ping();
      } catch (error) {
        return (error as Error).message;
      } finally {
        redis.disconnect();
      }
    };
    expect(await fromOne()).to.equal('PONG');
    await kubelet.partition([[`${namespace}/redis-0`], [`${namespace}/redis-1`]]);
    expect(await fromOne(), 'redis-1 to redis-0 across the partition').to.not.equal('PONG');
    expect(await fromHost(), 'the host, in no group').to.equal('PONG');
    await kubelet.heal();
    await kubelet.partition([['127.0.0.1'], [`${namespace}/redis-0`]]);
    expect(await fromHost(), 'the host to redis-0 across the partition').to.not.equal('PONG');
    expect(await fromOne(), 'redis-1, in no group').to.equal('PONG');
    await kubelet.heal();
    expect(await fromHost()).to.equal('PONG');
    expect(await fromOne()).to.equal('PONG');
  });

  it("lets a pod reach the API server with its ServiceAccount's token, under RBAC, as an in-cluster client does", async () => {
    const rbac = kc().makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'reader' } } });
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'pod-reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'pod-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }],
      },
    });
    // What in-cluster clients (@kubernetes/client-node's loadFromCluster, client-go's
    // InClusterConfig) read: the Service env, the token, the CA and the namespace. They reach
    // the `kubernetes` Service's ClusterIP, and its DNS name resolves there, both in the API
    // server's certificate.
    const script = `
      const fs = require('fs'), https = require('https'), dns = require('dns');
      const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
      const [token, ca, ns] = ['token', 'ca.crt', 'namespace'].map((f) => fs.readFileSync(dir + '/' + f, 'utf8'));
      const get = (host, port, path) => new Promise((resolve, reject) => https.get({
        host, port, path, ca, headers: { Authorization: 'Bearer ' + token },
      }, (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject));
      const { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port } = process.env;
      (async () => {
        console.log('service', host + ':' + port);
        console.log('dns', (await dns.promises.lookup('kubernetes.default.svc')).address);
        const pods = await get(host, port, '/api/v1/namespaces/' + ns + '/pods');
        const secrets = await get(host, port, '/api/v1/namespaces/' + ns + '/secrets');
        const byName = await get('kubernetes.default.svc', 443, '/api/v1/namespaces/' + ns + '/pods');
        console.log('pods', pods, 'secrets', secrets, 'by name', byName);
        process.exit(pods === 200 && secrets === 403 && byName === 200 ? 0 : 1);
      })().catch((e) => { console.log('error', e.message); process.exit(2); });`;
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'in-cluster' },
        spec: {
          serviceAccountName: 'reader',
          restartPolicy: 'Never',
          securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
          containers: [
            {
              name: 'client',
              image: 'docker.io/library/node:20-bookworm-slim',
              command: ['node', '-e', script],
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    });
    const done = await waitFor(
      async () => {
        const p = await pod('in-cluster');
        return p?.status?.phase === 'Succeeded' || p?.status?.phase === 'Failed' ? p : undefined;
      },
      { what: 'pod in-cluster finished', timeout: 120_000 },
    );
    const log = await readFile(
      join(env.dir, 'kubelet', 'pods', done.metadata!.uid!, 'logs', 'client.log'),
      'utf8',
    ).catch((error: Error) => error.message);
    expect(done.status?.phase, log).to.equal('Succeeded');
    const { spec } = await core.readNamespacedService({ namespace: 'default', name: 'kubernetes' });
    expect(log).to.contain(`service ${spec!.clusterIP}:443`).and.contain(`dns ${spec!.clusterIP}\n`);
    expect(log).to.contain('pods 200 secrets 403 by name 200');
  });

  it('says why a pod whose image is not on this machine does not start', async () => {
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'elsewhere' },
        spec: { containers: [{ name: 'app', image: 'registry.example.com/team/app:1.0' }] },
      },
    });
    const waiting = await waitFor(
      async () => (await pod('elsewhere'))?.status?.containerStatuses?.[0]?.state?.waiting,
      { what: 'the container of pod elsewhere Waiting with a reason' },
    );
    expect(waiting.reason).to.equal('ErrImageNeverPull');
    expect(waiting.message).to.contain('registry.example.com/team/app:1.0').and.contain('no registry is reachable');
  });

  it('leaves no container, network or ClusterIP behind once the environment is down', async () => {
    await stopEnvironment(name, { purge: true });
    const prefix = `172.16.${env.podIpPrefix.split('.')[1]}.`;
    const onLo = execFileSync('ip', ['-o', '-4', 'addr', 'show', 'dev', 'lo'], { encoding: 'utf8' });
    expect(onLo).to.not.contain(prefix);
    expect(await podman('ps', '--all', '--quiet', '--filter', `label=knredis.env=${name}`)).to.equal('');
    expect(await podman('network', 'ls', '--quiet', '--filter', `label=knredis.env=${name}`)).to.equal('');
  });
});
