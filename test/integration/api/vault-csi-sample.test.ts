// The Vault example (infra/samples/vault-csi) on the real API server: the Secrets Store CSI
// driver's own SecretProviderClass CRD (from its Go module) validates the SecretProviderClass
// strictly, the core API the sync Deployment, knredis' webhook the RedisCluster; and the
// Secret the driver would sync is the one, with the key, that spec.auth.secretRef names.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../../../infra/local/paths.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { installApi, type InstalledApi } from './api-fixture.ts';

const CSI_DRIVER = 'sigs.k8s.io/secrets-store-csi-driver@v1.5.0';
const sample = join(repoRoot, 'infra/samples/vault-csi');

interface SecretProviderClass {
  spec: { secretObjects: { secretName: string; data: { key: string }[] }[] };
}
interface RedisClusterSample {
  spec: { auth: { secretRef: { name: string; key: string } } };
}

describe('infra/samples/vault-csi', function () {
  this.timeout(300_000);
  let api: InstalledApi;
  let ns: string;

  before(async function () {
    requireCommand('go', 'the CRD comes from the Secrets Store CSI driver module on the Go module proxy');
    api = await installApi(`knredis-vault-test-${process.pid}`);
    ns = await api.namespace(`vault-${process.pid}`);
    const dir = JSON.parse(execFileSync('go', ['mod', 'download', '-json', CSI_DRIVER], { encoding: 'utf8' })) as {
      Dir: string;
    };
    await api.env.kubectl([
      'apply',
      '--server-side',
      '-f',
      join(dir.Dir, 'deploy/secrets-store.csi.x-k8s.io_secretproviderclasses.yaml'),
    ]);
    await api.env.kubectl([
      'wait',
      '--for=condition=Established',
      'crd/secretproviderclasses.secrets-store.csi.x-k8s.io',
      '--timeout=120s',
    ]);
  });
  after(async () => {
    await api?.env.kubectl(['delete', 'crd', 'secretproviderclasses.secrets-store.csi.x-k8s.io', '--ignore-not-found']);
    await api?.stop();
  });

  it('is accepted, every field known, by the CSI driver CRD, the API server and the RedisCluster webhook', async () => {
    const out = await api.env.kubectl(['-n', ns, 'apply', '--validate=strict', '-k', sample]);
    expect(out).to.match(/secretproviderclass\.secrets-store\.csi\.x-k8s\.io\/cart-redis created/);
    expect(out).to.match(/deployment\.apps\/cart-redis-secrets created/);
    expect(out).to.match(/rediscluster\.cache\.redis\.io\/cart created/);
  });

  it('syncs the Secret, with the key, that the RedisCluster reads its password from', () => {
    const docs = (file: string) =>
      parseAllDocuments(readFileSync(join(sample, file), 'utf8')).map((d) => d.toJSON() as unknown);
    const [spc] = docs('secretproviderclass.yaml') as SecretProviderClass[];
    const [cluster] = docs('redis-cluster.yaml') as RedisClusterSample[];
    const ref = cluster!.spec.auth.secretRef;
    const synced = spc!.spec.secretObjects.find((o) => o.secretName === ref.name);
    expect(synced, `a secretObject named ${ref.name}`).to.not.equal(undefined);
    expect(synced!.data.map((d) => d.key)).to.include(ref.key);
  });

  it('refuses a SecretProviderClass field the CRD does not have', async () => {
    const bad = JSON.stringify({
      apiVersion: 'secrets-store.csi.x-k8s.io/v1',
      kind: 'SecretProviderClass',
      metadata: { name: 'bad' },
      spec: { provider: 'vault', secretObject: [] },
    });
    let message = '';
    try {
      await api.env.kubectl(['-n', ns, 'apply', '--validate=strict', '-f', '-'], { input: bad });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.match(/unknown field "spec\.secretObject"/);
  });
});
