// The cert-manager example (infra/samples/cert-manager) on the real API server: cert-manager's
// own Certificate and Issuer CRDs (from its Go module) validate the Issuers and Certificates
// strictly, knredis' webhook the RedisCluster; the Secret the Certificate writes is the one
// spec.tls names, and it holds the name the operator verifies.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../../../infra/local/paths.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { waitFor } from '../../support/wait-for.ts';
import { installApi, type InstalledApi } from './api-fixture.ts';

const CERT_MANAGER = 'github.com/cert-manager/cert-manager@v1.16.3';
const sample = join(repoRoot, 'infra/samples/cert-manager');
const CRDS = ['certificates', 'issuers'];
const CONDITION_ESTABLISHED = 'jsonpath={.status.conditions[?(@.type=="Established")].status}';

interface Certificate {
  kind: string;
  metadata: { name: string };
  spec: { secretName: string; dnsNames?: string[]; isCA?: boolean };
}

describe('infra/samples/cert-manager', function () {
  this.timeout(300_000);
  let api: InstalledApi;
  let ns: string;

  before(async function () {
    requireCommand('go', "the CRDs come from cert-manager's module on the Go module proxy");
    api = await installApi(`knredis-cert-manager-test-${process.pid}`);
    ns = await api.namespace(`certs-${process.pid}`);
    const dir = JSON.parse(execFileSync('go', ['mod', 'download', '-json', CERT_MANAGER], { encoding: 'utf8' })) as {
      Dir: string;
    };
    for (const crd of CRDS) {
      // The module's CRDs are Helm templates: the schema is plain, the labels are template text.
      const object = parse(readFileSync(join(dir.Dir, `deploy/crds/crd-${crd}.yaml`), 'utf8')) as {
        metadata: { labels?: object; annotations?: object };
      };
      delete object.metadata.labels;
      delete object.metadata.annotations;
      await api.env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(object) });
      // Polled: `kubectl wait` fails while a new CRD has no conditions at all yet.
      await waitFor(
        async () =>
          (await api.env.kubectl(['get', 'crd', `${crd}.cert-manager.io`, '-o', CONDITION_ESTABLISHED])) === 'True',
        { what: `crd/${crd}.cert-manager.io Established`, timeout: 120_000 },
      );
    }
  });
  after(async () => {
    for (const crd of CRDS) await api?.env.kubectl(['delete', 'crd', `${crd}.cert-manager.io`, '--ignore-not-found']);
    await api?.stop();
  });

  it('is accepted, every field known, by the cert-manager CRDs, the API server and the RedisCluster webhook', async () => {
    const out = await api.env.kubectl(['-n', ns, 'apply', '--validate=strict', '-k', sample]);
    expect(out).to.match(/certificate\.cert-manager\.io\/cache-tls created/);
    expect(out).to.match(/issuer\.cert-manager\.io\/cache-ca created/);
    expect(out).to.match(/rediscluster\.cache\.redis\.io\/cache created/);
  });

  it('writes the Secret spec.tls names, for the names the operator and the pods are reached by', () => {
    const docs = ['certificate.yaml', 'redis-cluster.yaml'].flatMap((f) =>
      parseAllDocuments(readFileSync(join(sample, f), 'utf8')).map((d) => d.toJSON() as Certificate),
    );
    const cert = docs.find((d) => d.kind === 'Certificate')!;
    const rc = docs.find((d) => d.kind === 'RedisCluster') as unknown as {
      metadata: { name: string };
      spec: { tls: { secretRef: { name: string } } };
    };
    expect(cert.spec.secretName).to.equal(rc.spec.tls.secretRef.name);
    expect(cert.spec.dnsNames).to.include(`${rc.metadata.name}.default.svc`);
    expect(cert.spec.dnsNames).to.include(`*.${rc.metadata.name}-nodes.default.svc`);
  });
});
