import { expect } from 'chai';
import { acceptsPassword } from '../../support/redis-server.ts';
import { passwordHash } from '../../../shared/io/redis/auth.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from './harness.ts';
import { loadedCluster, podPlacements, type LoadedCluster } from './pods.ts';

const NEW = 'rotated-secret-password-9';

describe('reconcile: password rotation (on the local Kubernetes)', function () {
  this.timeout(900_000);
  let api: InstalledApi;
  let drive: Driver;
  let ns: string;
  let cluster: LoadedCluster | undefined;
  const key = () => `${ns}/rota`;
  const json = async <T>(args: string[]) => JSON.parse(await api.env.kubectl([...args, '-n', ns, '-o', 'json'])) as T;
  const podUids = async () =>
    (await json<{ items: { metadata: { name: string; uid: string } }[] }>(['get', 'pods'])).items
      .map((p) => `${p.metadata.name}=${p.metadata.uid}`)
      .sort();

  before(async () => {
    api = await installApi(`knredis-rotation-${process.pid}`);
    drive = driver(api, { passwordGraceMs: 3_000 });
    ns = await api.namespace(`rc-rota-${process.pid}`);
    cluster = await loadedCluster(api, drive, {
      namespace: ns,
      name: 'rota',
      spec: { masters: 3, replicasPerMaster: 1, version: '7.0', storage: { reclaim: 'Delete' } },
      keys: 5_000,
      prefix: 'p',
      workers: 4,
    });
  });
  after(async () => {
    await cluster?.close();
    await api?.stop();
  });

  it('rolls a live 3x1 cluster to a changed Secret under load: no client error, no restart, no password said', async () => {
    const old = cluster!.password;
    const before = await podUids();
    const started = Date.now();
    await api.env.kubectl([
      'patch',
      'secret',
      'rota-auth',
      '-n',
      ns,
      '-p',
      JSON.stringify({ stringData: { password: NEW } }),
    ]);
    const progress: string[] = [];
    // The client switches when the status tells it to.
    await drive.until(key(), 'clients told to switch', (rc) => {
      progress.push(rc?.status?.operation?.progress ?? '');
      return (rc?.status?.operation?.progress ?? '').includes('clients switch now');
    });
    cluster!.load.usePassword(NEW);
    await drive.until(key(), 'rotation done', (rc) => {
      progress.push(rc?.status?.operation?.progress ?? '');
      return isReady(rc) && !rc?.status?.operation;
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(`      rotation of a 3x1 cluster: ${seconds.toFixed(1)} s (3 s of it the clients' grace period)`);
    expect(progress.some((p) => /^rotating password: \d\/6 nodes accept the new password/.test(p))).to.equal(true);
    expect(await podUids()).to.deep.equal(before);
    for (const pod of await podPlacements(api, ns)) {
      expect(await acceptsPassword(pod.address.ip, NEW), pod.name).to.equal(true);
      expect(await acceptsPassword(pod.address.ip, old), pod.name).to.equal(false);
    }
    const active = await json<{ metadata: { annotations: Record<string, string> }; data: { password: string } }>([
      'get',
      'secret',
      'rota-auth-active',
    ]);
    expect(active.metadata.annotations['cache.redis.io/password-hash']).to.equal(passwordHash(NEW));
    expect(Buffer.from(active.data.password, 'base64').toString()).to.equal(NEW);
    const report = await cluster!.load.stop();
    expect(report.errors, report.samples.join('; ')).to.equal(0);
    expect(await cluster!.load.verify()).to.deep.equal([]);
    cluster!.load.start(2);
    // Nothing a user or a log reader sees holds either password.
    const events = await json<{ items: { reason: string; message: string }[] }>(['get', 'events']);
    expect(events.items.some((e) => e.reason === 'PasswordRotation')).to.equal(true);
    const rc = await drive.get(ns, 'rota');
    const said = [...drive.logLines, ...events.items.map((e) => e.message), JSON.stringify(rc?.status)].join('\n');
    for (const secret of [old, NEW]) expect(said).not.to.contain(secret);
  });

  it('restarts a pod with the password in force after the rotation', async () => {
    const [pod] = await podPlacements(api, ns);
    await api.env.kubectl(['delete', 'pod', pod!.name, '-n', ns, '--wait=false']);
    await drive.until(key(), 'Ready with the pod back', (rc) => isReady(rc) && rc?.status?.readyReplicas !== undefined);
    const back = (await podPlacements(api, ns)).find((p) => p.name === pod!.name);
    expect(await acceptsPassword(back!.address.ip, NEW)).to.equal(true);
  });
});
