import { expect } from 'chai';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';
import { loadedCluster, type LoadedCluster } from './pods.ts';

// The e2e suite scales with 100,000 keys through the real processes; here fewer keep it quick.
const KEYS = Number(process.env.KNREDIS_SCALE_KEYS ?? 20_000);

describe('reconcile: scaling with live slot migration (on the local Kubernetes)', function () {
  this.timeout(900_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;
  let cluster: LoadedCluster | undefined;
  const key = () => `${ns}/scaly`;

  before(async () => {
    api = await installApi(`knredis-scale-${process.pid}`);
    drive = driver(api);
    ns = await api.namespace(`rc-scale-${process.pid}`);
    cluster = await loadedCluster(api, drive, {
      namespace: ns,
      name: 'scaly',
      spec: { masters: 3, replicasPerMaster: 1, storage: { reclaim: 'Delete' } },
      keys: KEYS,
      prefix: 'k',
      workers: 4,
    });
  });
  after(async () => {
    await cluster?.close();
    await api?.stop();
  });

  const scaleTo = async (masters: number) => {
    await api.env.kubectl(['scale', 'rediscluster', 'scaly', '-n', ns, `--replicas=${masters}`]);
    return drive.until(
      key(),
      `scaly Ready with ${masters} masters`,
      (rc) => isReady(rc) && rc?.status?.readyMasters === masters,
      600_000,
    );
  };

  it('scales 3 -> 6 masters while a client writes and reads: no client error, every key kept', async () => {
    const rc = await scaleTo(6);
    expect(rc?.status?.shards).to.have.length(6);
    expect(rc?.status?.slotsCovered).to.equal(16384);
    const report = { ...(await cluster?.load.stop()) };
    cluster?.load.start(4);
    expect(report.errors, report.samples?.join('\n')).to.equal(0);
    expect(report.ops).to.be.greaterThan(0);
  });

  it('scales 6 -> 3 masters the same way, and the removed pods and their claims go', async () => {
    const rc = await scaleTo(3);
    expect(rc?.status?.shards).to.have.length(3);
    const report = await cluster?.load.stop();
    expect(report?.errors, report?.samples.join('\n')).to.equal(0);
    expect(await cluster?.load.verify()).to.deep.equal([]);
    await api.env.waitFor(
      async () => {
        const pods = (await api.env.kubectl(['get', 'pods', '-n', ns, '-o', 'name']))
          .trim()
          .split('\n')
          .filter(Boolean);
        const claims = (await api.env.kubectl(['get', 'pvc', '-n', ns, '-o', 'name']))
          .trim()
          .split('\n')
          .filter(Boolean);
        return pods.length === 6 && claims.length === 6 ? true : undefined;
      },
      { timeout: 120_000, what: 'the StatefulSet back at 6 pods with 6 claims' },
    );
  });
});
