import { expect } from 'chai';
import { waitFor } from '../../support/wait-for.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';

interface Claim {
  metadata: { name: string };
  spec: { resources: { requests: { storage: string } } };
  status: { capacity?: { storage: string } };
}

describe('volume growth (on the local Kubernetes)', function () {
  this.timeout(600_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;

  before(async () => {
    api = await installApi(`knredis-volumes-${process.pid}`);
    drive = driver(api);
    ns = await api.namespace(`rc-vol-${process.pid}`);
  });
  after(async () => {
    await api?.stop();
  });

  const kubectlJson = async <T>(args: string[]) =>
    JSON.parse(await api.env.kubectl([...args, '-n', ns, '-o', 'json'])) as T;

  it('grows every PVC and the claim template of a live cluster without restarting a pod', async () => {
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'grow', namespace: ns },
        spec: { masters: 3, replicasPerMaster: 0, storage: { size: '1Gi' } },
      }),
    });
    await drive.until(`${ns}/grow`, 'grow Ready', isReady, 240_000);
    const podsBefore = await kubectlJson<{ items: { metadata: { name: string; uid: string } }[] }>(['get', 'pods']);
    const stsBefore = await kubectlJson<{ metadata: { uid: string } }>(['get', 'statefulset', 'grow']);

    await api.env.kubectl([
      'patch',
      'rediscluster',
      'grow',
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      '{"spec":{"storage":{"size":"2Gi"}}}',
    ]);
    let sawResizing = false;
    await drive.until(`${ns}/grow`, 'volumes at 2Gi', (rc) => {
      if (rc?.status?.operation?.type === 'ResizeVolumes') sawResizing = true;
      return isReady(rc) && rc?.status?.operation === undefined;
    });

    const claims = await kubectlJson<{ items: Claim[] }>(['get', 'pvc']);
    expect(claims.items).to.have.length(3);
    for (const c of claims.items) {
      expect(c.spec.resources.requests.storage, c.metadata.name).to.equal('2Gi');
      expect(c.status.capacity?.storage, c.metadata.name).to.equal('2Gi');
    }
    const sts = await kubectlJson<{
      metadata: { uid: string };
      spec: { volumeClaimTemplates: Claim[] };
    }>(['get', 'statefulset', 'grow']);
    expect(sts.metadata.uid, 'the StatefulSet was replaced').to.not.equal(stsBefore.metadata.uid);
    expect(sts.spec.volumeClaimTemplates[0]?.spec.resources.requests.storage).to.equal('2Gi');
    // The StatefulSet controller adopts the orphaned pods.
    const podsAfter = await waitFor(
      async () => {
        const pods = await kubectlJson<{
          items: { metadata: { name: string; uid: string; ownerReferences?: { uid: string }[] } }[];
        }>(['get', 'pods']);
        return pods.items.every((p) => p.metadata.ownerReferences?.length) ? pods : undefined;
      },
      { timeout: 60_000, what: 'pods adopted' },
    );
    expect(podsAfter.items.map((p) => p.metadata.uid).sort()).to.deep.equal(
      podsBefore.items.map((p) => p.metadata.uid).sort(),
    );
    for (const pod of podsAfter.items)
      expect(
        pod.metadata.ownerReferences?.map((o) => o.uid),
        `${pod.metadata.name} adopted`,
      ).to.deep.equal([sts.metadata.uid]);
    expect(sawResizing, 'status showed ResizeVolumes').to.equal(true);
    const events = await api.env.kubectl(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=grow']);
    expect(events).to.include('ReplacingStatefulSet').and.to.include('ResizingVolumes');
  });
});
