import { expect } from 'chai';
import type { V1NetworkPolicy } from '@kubernetes/client-node';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, type Driver } from './harness.ts';

// The NetworkPolicy is a child like the others: accepted by the real API server as built,
// put back when deleted, removed when turned off and with its RedisCluster. Whether traffic is
// actually cut needs a network plugin that enforces NetworkPolicy: the local environment has
// none, so that part is not tested here.
describe('the NetworkPolicy of a RedisCluster', function () {
  this.timeout(300_000);
  let api: InstalledApi;
  let drive: Driver;
  const ns = `rc-netpol-${process.pid}`;
  const key = `${ns}/guarded`;
  const apply = (spec: object) =>
    api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'guarded', namespace: ns },
        spec: { masters: 3, replicasPerMaster: 0, exporter: { enabled: true }, ...spec },
      }),
    });
  const read = async (): Promise<V1NetworkPolicy | undefined> => {
    const out = await api.env.kubectl([
      'get',
      'networkpolicy',
      'guarded',
      '-n',
      ns,
      '-o',
      'json',
      '--ignore-not-found',
    ]);
    return out.trim() ? (JSON.parse(out) as V1NetworkPolicy) : undefined;
  };
  /** Passes until the policy is there (or gone), as a user would see it. */
  const untilPolicy = (present: boolean, what: string) =>
    api.env.waitFor(
      async () => {
        await drive.once(key).catch(() => undefined);
        const p = await read();
        return present ? p : p === undefined;
      },
      { what, timeout: 60_000, interval: 300 },
    );

  before(async () => {
    api = await installApi(`knredis-netpol-${process.pid}`);
    drive = driver(api);
    await api.namespace(ns);
  });
  after(async () => {
    await drive?.remove(ns, 'guarded').catch(() => undefined);
    await api?.stop();
  });

  it('is accepted by the API server as built, with the clients the spec names', async () => {
    await apply({ networkPolicy: { clients: [{ namespaceSelector: { matchLabels: { team: 'shop' } } }] } });
    const policy = (await untilPolicy(true, 'the NetworkPolicy')) as V1NetworkPolicy;
    expect(policy.metadata?.ownerReferences?.[0]).to.deep.include({ kind: 'RedisCluster', name: 'guarded' });
    const json = JSON.parse(JSON.stringify(policy)) as {
      spec: { ingress: { from: object[]; ports: { port: number }[] }[] };
    };
    // On the wire it is `from` (the client library calls it `_from`): checked in the raw JSON.
    expect(json.spec.ingress.map((r) => r.ports[0]?.port)).to.deep.equal([6379, 16379, 9121]);
    expect(json.spec.ingress[0]?.from[0]).to.deep.equal({ namespaceSelector: { matchLabels: { team: 'shop' } } });
    expect(json.spec.ingress[1]?.from).to.have.length(1);
  });

  it('refuses a client that mixes ipBlock with a selector, with a message that says why', async () => {
    const refused = await apply({
      networkPolicy: { clients: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] },
    })
      .then(() => '')
      .catch((error: Error) => error.message);
    expect(refused).to.match(/ipBlock cannot be combined with podSelector or namespaceSelector/);
  });

  it('is put back when someone deletes it', async () => {
    const before = await read();
    await api.env.kubectl(['delete', 'networkpolicy', 'guarded', '-n', ns]);
    const again = (await untilPolicy(true, 'the NetworkPolicy recreated')) as V1NetworkPolicy;
    expect(again.metadata?.uid).to.not.equal(before?.metadata?.uid);
  });

  it('goes when spec.networkPolicy.enabled is false, and comes back when true', async () => {
    await apply({ networkPolicy: { enabled: false } });
    await untilPolicy(false, 'the NetworkPolicy removed');
    await apply({ networkPolicy: { enabled: true } });
    await untilPolicy(true, 'the NetworkPolicy back');
  });

  it('goes with its RedisCluster', async () => {
    await drive.remove(ns, 'guarded');
    await api.env.waitFor(async () => (await read()) === undefined, {
      what: 'the NetworkPolicy garbage-collected',
      timeout: 60_000,
    });
  });
});
