// knredis as users install it: the image built here, the manifests of its own overlay
// (`kubectl apply --server-side -k infra/overlays/kubernetes`), each function a Deployment under
// its own ServiceAccount, in an environment whose pods are OCI containers with cluster DNS and
// routed ClusterIPs (infra/local/kubelet/README.md). The event source watches the API server
// from its pod and posts to ingest's Service with its projected token; ingest queues into the
// queue Redis by its Service name; the reconcile worker forms the cluster from its pod.
//
// Not yet here: cert-manager. The overlay's Certificate, Issuer and validating webhook
// registration are left out, so the webhooks Deployment is too (its TLS Secret is
// cert-manager's); the CRD's schema still validates.
import { expect } from 'chai';
import { Cluster } from 'ioredis';
import { startEnvironment, stopEnvironment, type Environment } from '../../infra/local/environment.ts';
import { podman } from '../../infra/local/kubelet/podman-runtime.ts';
import { requireCommand } from '../support/prerequisites.ts';
import { toLocal, type LocalEnvironment } from '../support/local-env.ts';
import { ClusterView, fullShape } from './observe.ts';

const name = `in-cluster-${process.pid}`;
const system = 'knredis-system';
const namespace = 'shop';
/** cert-manager's objects, and what needs them: not installed here yet. */
const needsCertManager = new Set(['Certificate', 'Issuer', 'ValidatingWebhookConfiguration']);

describe('knredis installed from its own overlay, in containers (in-cluster)', function () {
  this.timeout(600_000);
  let state: Environment;
  let env: LocalEnvironment;
  let shop: ClusterView;

  const kubectl = (args: string[], input?: string) => env.kubectl(args, input ? { input } : {});

  before(async function () {
    requireCommand('podman', 'Debian package podman; npm test installs it');
    requireCommand('runc', 'Debian package runc; npm test installs it');
    for (const image of ['localhost/knredis:0.1.0', 'docker.io/library/redis:7.0'])
      await podman('image', 'exists', image).catch(() => {
        throw new Error(`prerequisite missing: the image ${image} (npm run image; infra/image/build-redis.sh)`);
      });
    state = await startEnvironment({ name, nodes: 3, owner: process.pid, runtime: 'container' });
    env = toLocal(state);
    shop = new ClusterView(env, namespace, 'shop');
  });

  after(async function () {
    if (state) await stopEnvironment(name, { purge: true });
  });

  it('runs each function from the image under its own ServiceAccount, once the Secrets users create exist', async () => {
    const rendered = await kubectl(['kustomize', 'infra/overlays/kubernetes']);
    const documents = rendered.split(/^---$/m).filter((d) => d.trim());
    const kept = documents.filter((d) => {
      const kind = /^kind: (\w+)$/m.exec(d)?.[1] ?? '';
      const webhooksDeployment = kind === 'Deployment' && /^ {2}name: knredis-webhooks$/m.test(d);
      return !needsCertManager.has(kind) && !webhooksDeployment;
    });
    expect(documents.length - kept.length, 'documents left out').to.equal(4);
    await kubectl(['apply', '--server-side', '-f', '-'], kept.join('\n---\n'));
    // What the README asks users to create before deploying.
    await kubectl([
      '-n',
      system,
      'create',
      'secret',
      'generic',
      'knredis-queue-redis',
      '--from-literal=password=q-pa55',
    ]);
    await kubectl(['-n', system, 'create', 'secret', 'generic', 'knredis-dashboard', '--from-literal=token=d-t0ken']);
    for (const deployment of ['knredis-event-source', 'knredis-ingest', 'knredis-reconcile', 'knredis-dashboard'])
      await kubectl(['-n', system, 'rollout', 'status', `deployment/${deployment}`, '--timeout=180s']);
    await kubectl(['-n', system, 'rollout', 'status', 'statefulset/knredis-queue-redis', '--timeout=180s']);
    const pods = JSON.parse(await kubectl(['-n', system, 'get', 'pods', '-o', 'json'])) as {
      items: { spec: { serviceAccountName: string; containers: { image: string }[] }; status: { podIP: string } }[];
    };
    const accounts = new Set(pods.items.map((p) => p.spec.serviceAccountName));
    for (const account of ['knredis-event-source', 'knredis-ingest', 'knredis-reconcile', 'knredis-dashboard'])
      expect([...accounts]).to.include(account);
    for (const p of pods.items) expect(p.status.podIP).to.match(/^10\./);
  });

  it('forms a 3x1 cluster from a RedisCluster, by events alone, and a client writes and reads every key', async () => {
    await kubectl(['create', 'namespace', namespace]);
    await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'shop', namespace },
        spec: { masters: 3, replicasPerMaster: 1 },
      }),
    );
    // The worker's resync is 5 minutes (infra/base/config.yaml): within this wait only the events
    // the event source posted to ingest can have started the work.
    const rc = await shop.until('shop Ready with 3x1', fullShape(3, 1), 240_000);
    expect(rc?.status?.slotsCovered).to.equal(16384);
    const pods = await shop.pods();
    const password = await shop.password();
    const client = new Cluster([{ host: pods[0]!.ip, port: 6379 }], { redisOptions: { password } });
    try {
      const keys = Array.from({ length: 1000 }, (_, i) => `k:${i}`);
      for (const key of keys) await client.set(key, `v-${key}`);
      const values = await Promise.all(keys.map((key) => client.get(key)));
      expect(values.filter((v, i) => v !== `v-${keys[i]}`)).to.deep.equal([]);
    } finally {
      client.disconnect();
    }
  });

  it('removes the cluster it formed when the RedisCluster is deleted', async () => {
    await kubectl(['-n', namespace, 'delete', 'rediscluster', 'shop', '--wait=false']);
    await shop.until('shop gone', (rc) => rc === undefined, 180_000);
    await env.waitFor(async () => (await shop.owned('statefulsets,pods,services,configmaps')).length === 0, {
      what: "shop's children gone",
      timeout: 180_000,
    });
  });
});
