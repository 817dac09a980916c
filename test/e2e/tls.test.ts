// spec.tls end to end, with the operator running as separate processes (infra/local/operator-stack.ts):
// a RedisCluster from a kubernetes.io/tls Secret made with openssl, a TLS cluster client
// writing and reading through a scale-out, and a renewed certificate that reaches the operator
// by the Secret's own event (the resync is set far away) and is reloaded without a restart.
import { X509Certificate } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import { expect } from 'chai';
import { servedFingerprint } from '../../shared/io/redis/tls.ts';
import type { ClientLoad } from '../integration/cluster/client-load.ts';
import type { LocalEnvironment } from '../support/local-env.ts';
import { testCa, tlsSecret, type TestCa } from '../support/tls-certs.ts';
import { isReady, type ClusterView } from './observe.ts';
import { startStackFixture, type StackFixture } from './stack-fixture.ts';

const NAME = 'secure';
const KEYS = 5_000;

describe('knredis end to end: TLS (functions as separate processes, on the local Kubernetes)', function () {
  this.timeout(900_000);
  let fixture: StackFixture | undefined;
  let env: LocalEnvironment;
  let ns: string;
  let ca: TestCa;
  let view: ClusterView;
  let client: ConnectionOptions;
  let load: ClientLoad | undefined;
  const dnsNames = () => [`${NAME}.${ns}.svc`, `*.${NAME}-nodes.${ns}.svc`, 'localhost'];
  const secret = (server: { cert: string; key: string }) =>
    env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(tlsSecret(`${NAME}-tls`, ns, ca.ca, server)) });
  const fingerprints = async () =>
    Promise.all((await view.pods()).map((p) => servedFingerprint({ ip: p.ip, port: 6379 }, client)));

  before(async () => {
    fixture = await startStackFixture('tls', NAME);
    ({ env, ns, view } = fixture);
    ca = testCa();
    client = { ca: ca.ca, servername: `${NAME}.${ns}.svc` };
  });
  after(async function () {
    this.timeout(240_000);
    await load?.stop();
    await load?.close();
    await fixture?.stop();
    ca?.cleanup();
  });

  it('creates a TLS cluster from the Secret and scales it out under a TLS client load with zero errors', async () => {
    await secret(ca.issue(dnsNames()));
    load = await fixture!.createLoaded({
      spec: { tls: { secretRef: { name: `${NAME}-tls` } } },
      prefix: 'e',
      keys: KEYS,
      tls: client,
    });
    await env.kubectl(['scale', 'rediscluster', NAME, '-n', ns, '--replicas=4']);
    await view.until('Ready with 4 masters', (r) => isReady(r) && r?.status?.readyMasters === 4, 600_000);
    const report = await load.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(report.ops).to.be.greaterThan(0);
    expect(await load.verify()).to.deep.equal([]);
    load.start(4);
  });

  it('reloads a renewed certificate on every node without a restart, under load, from the Secret event', async () => {
    const before = (await view.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort();
    const renewed = ca.issue(dnsNames());
    const wanted = new X509Certificate(renewed.cert).fingerprint256;
    expect(await fingerprints()).not.to.include(wanted);
    await secret(renewed);
    await env.waitFor(async () => (await fingerprints()).every((f) => f === wanted), {
      what: 'every node serving the renewed certificate',
      timeout: 120_000,
    });
    await view.until('Ready, no operation', (r) => isReady(r) && !r?.status?.operation);
    expect((await view.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort()).to.deep.equal(before);
    const events = JSON.parse(await env.kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as {
      items: { reason: string; message: string }[];
    };
    expect(events.items.some((e) => e.reason === 'CertificateReloaded')).to.equal(true);
    const report = await load!.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(await load!.verify()).to.deep.equal([]);
  });
});
