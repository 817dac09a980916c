// The local control plane: the real binaries at the pinned version, controllers that act
// (service accounts, StatefulSet, garbage collection), and environments that live side by side.
import { expect } from 'chai';
import { AppsV1Api, CoreV1Api, VersionApi, type KubeConfig } from '@kubernetes/client-node';
import { versions } from '../../../infra/local/paths.ts';
import { localEnvironment, waitFor, type LocalEnvironment } from '../../support/local-env.ts';

describe('infra/local control plane', function () {
  let env: LocalEnvironment;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const namespaces: string[] = [];

  async function namespace(suffix: string): Promise<string> {
    const name = `cp-${process.pid}-${suffix}`;
    await core.createNamespace({ body: { metadata: { name } } });
    namespaces.push(name);
    return name;
  }

  before(async function () {
    this.timeout(300_000);
    env = await localEnvironment();
    kc = env.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
  });

  after(async function () {
    for (const name of namespaces) await core.deleteNamespace({ name }).catch(() => {});
  });

  it('reports the pinned Kubernetes version when asked for /version', async function () {
    const version = await kc.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).to.equal(versions().kube);
    expect(await env.kubectl(['version', '-o', 'json'])).to.include(`"gitVersion": "${versions().kube}"`);
  });

  it('creates the default ServiceAccount when a namespace is created', async function () {
    const ns = await namespace('sa');
    const sa = await waitFor(() => core.readNamespacedServiceAccount({ name: 'default', namespace: ns }), {
      what: `ServiceAccount ${ns}/default`,
    });
    expect(sa.metadata?.name).to.equal('default');
  });

  it('creates the Pod objects of a StatefulSet', async function () {
    const ns = await namespace('sts');
    const labels = { app: 'cp-sts' };
    const sts = await kc.makeApiClient(AppsV1Api).createNamespacedStatefulSet({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          serviceName: 'web',
          podManagementPolicy: 'Parallel',
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'redis', image: 'redis:7' }] } },
        },
      },
    });
    const pods = await waitFor(
      async () => {
        const items = (await core.listNamespacedPod({ namespace: ns })).items;
        return items.length === 2 ? items : undefined;
      },
      { what: `2 pods of StatefulSet ${ns}/web` },
    );
    expect(pods.map((p) => p.metadata?.name).sort()).to.deep.equal(['web-0', 'web-1']);
    for (const pod of pods) expect(pod.metadata?.ownerReferences?.[0]?.uid).to.equal(sts.metadata?.uid);
  });

  it('garbage-collects a dependent ConfigMap when its owner is deleted', async function () {
    const ns = await namespace('gc');
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owner' } } });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'dependent',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns });
    await waitFor(
      async () => {
        try {
          await core.readNamespacedConfigMap({ name: 'dependent', namespace: ns });
          return false;
        } catch (error) {
          return (error as { code?: number }).code === 404;
        }
      },
      { what: `ConfigMap ${ns}/dependent to be garbage-collected` },
    );
  });

  it('has the default StorageClass `local` for the kubelet to provision', async function () {
    const out = await env.kubectl([
      'get',
      'storageclass',
      'local',
      '-o',
      'jsonpath={.provisioner} {.metadata.annotations.storageclass\\.kubernetes\\.io/is-default-class}',
    ]);
    expect(out).to.equal('knredis.local/hostpath true');
  });
});
