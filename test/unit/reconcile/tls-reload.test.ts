import { expect } from 'chai';
import { planCertificateReload, type ServedCertificate } from '../../../shared/core/reconcile/tls-reload.ts';
import { tlsAccessOf } from '../../../functions/reconcile/tls.ts';
import { testCa } from '../../support/tls-certs.ts';

const NEW = 'AA:01';
const OLD = 'BB:02';
const served = (...fingerprints: (string | undefined)[]): ServedCertificate[] =>
  fingerprints.map((fingerprint, i) => ({ node: `rc-${i}`, fingerprint }));

describe('reconcile/tls-reload', () => {
  const table: [string, ServedCertificate[], string[], boolean, string | undefined][] = [
    ['every node serves the Secret’s certificate', served(NEW, NEW, NEW), [], false, undefined],
    [
      'some nodes serve the old one',
      served(NEW, OLD, OLD),
      ['rc-1', 'rc-2'],
      true,
      'reloading TLS certificates: 1/3 nodes serve the renewed certificate',
    ],
    ['an unreachable node is left to the engine', served(NEW, undefined, NEW), [], false, undefined],
    [
      'an unreachable node and an old one',
      served(OLD, undefined, NEW),
      ['rc-0'],
      true,
      'reloading TLS certificates: 1/3 nodes serve the renewed certificate',
    ],
    ['no node at all', [], [], false, undefined],
  ];
  for (const [what, nodes, reload, pending, progress] of table) {
    it(`plans ${reload.length} reload(s) when ${what}`, () => {
      const plan = planCertificateReload(NEW, nodes);
      expect(plan.reload).to.deep.equal(reload);
      expect(plan.pending).to.equal(pending);
      expect(plan.progress).to.equal(progress);
    });
  }
});

describe('reconcile/tls: the Secret, public half only', () => {
  // openssl runs once, when this block runs, not when mocha loads the file
  let ca: ReturnType<typeof testCa>;
  let server: { cert: string; key: string };
  before(function () {
    // Several openssl processes: on a loaded machine they outlast mocha's 2 s default.
    this.timeout(60_000);
    ca = testCa();
    server = ca.issue(['rc.ns.svc']);
  });
  after(() => ca.cleanup());
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secret = (data: Record<string, string>) => ({
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  });
  const whole = () => ({ 'tls.crt': server.cert, 'tls.key': server.key, 'ca.crt': ca.ca });

  it('keeps the CA, the name to verify and the fingerprint, never the key', () => {
    const seen = tlsAccessOf(secret(whole()), 'rc-tls', 'rc.ns.svc');
    expect(seen && 'access' in seen).to.equal(true);
    const text = JSON.stringify(seen);
    expect(text).not.to.contain('PRIVATE KEY');
    expect(seen).to.have.nested.property('access.connection.servername', 'rc.ns.svc');
    expect(seen)
      .to.have.nested.property('access.fingerprint')
      .that.matches(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  const problems: [string, () => object | undefined, string][] = [
    ['a missing Secret', () => undefined, 'Secret rc-tls (spec.tls.secretRef) was not found'],
    [
      'a Secret without ca.crt',
      () => secret({ 'tls.crt': server.cert, 'tls.key': server.key }),
      'Secret rc-tls (spec.tls.secretRef) lacks ca.crt: a kubernetes.io/tls Secret with ca.crt is needed',
    ],
    [
      'a tls.crt that is no certificate',
      () => secret({ ...whole(), 'tls.crt': 'not a certificate' }),
      'Secret rc-tls (spec.tls.secretRef): tls.crt is not a PEM certificate',
    ],
  ];
  for (const [what, object, message] of problems) {
    it(`says what is wrong with ${what}, and nothing of its data`, () => {
      expect(tlsAccessOf(object() as never, 'rc-tls', 'rc.ns.svc')).to.deep.equal({ problem: message });
    });
  }
});
