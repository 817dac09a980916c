import { expect } from 'chai';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';

describe('a RedisCluster in a namespace enforcing the restricted Pod Security Standard', function () {
  this.timeout(600_000);
  let api: InstalledApi;
  let drive: Driver;
  const ns = `rc-restricted-${process.pid}`;

  before(async () => {
    api = await installApi(`knredis-restricted-${process.pid}`);
    drive = driver(api);
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
      }),
    });
  });
  after(async () => {
    await drive?.remove(ns, 'hard').catch(() => undefined);
    await api?.env.kubectl(['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
    await api?.stop();
  });

  it('refuses a pod that runs as root there (the API server enforces the standard)', async () => {
    const refused = await api.env
      .kubectl(['run', 'root', '-n', ns, '--image=redis:7.2', '--restart=Never'])
      .then(() => '')
      .catch((error: Error) => error.message);
    expect(refused).to.match(/violates PodSecurity "restricted/);
  });

  it('forms the cluster there, its pods carrying the extra env of the spec', async () => {
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'hard', namespace: ns },
        spec: { masters: 3, replicasPerMaster: 0, env: [{ name: 'TZ', value: 'UTC' }] },
      }),
    });
    const rc = await drive.until(`${ns}/hard`, 'hard Ready', isReady, 240_000);
    expect(rc?.status?.slotsCovered).to.equal(16384);
    const pods = JSON.parse(await api.env.kubectl(['get', 'pods', '-n', ns, '-o', 'json'])) as {
      items: { spec: { securityContext: { runAsNonRoot?: boolean }; containers: { env?: { name: string }[] }[] } }[];
    };
    expect(pods.items).to.have.length(3);
    for (const pod of pods.items) {
      expect(pod.spec.securityContext.runAsNonRoot).to.equal(true);
      expect(pod.spec.containers[0]?.env?.map((e) => e.name)).to.include('TZ');
    }
  });
});
