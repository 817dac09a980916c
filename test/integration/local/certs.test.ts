import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureCerts } from '../../../infra/local/certs.ts';
import { requireCommand } from '../../support/prerequisites.ts';

const run = promisify(execFile);

describe("a local environment's certificates", () => {
  let dir: string;
  before(async () => {
    requireCommand('openssl');
    dir = await mkdtemp(join(tmpdir(), 'knredis-certs-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const names = async (cert: string) =>
    (await run('openssl', ['x509', '-in', cert, '-noout', '-ext', 'subjectAltName'])).stdout;

  it("name the `kubernetes` Service's ClusterIP and DNS names in the API server's, and make it again when the range moves", async () => {
    const first = await ensureCerts(dir, '172.16.101.1');
    expect(await names(first.apiserver.cert))
      .to.contain('IP Address:172.16.101.1')
      .and.contain('DNS:kubernetes.default.svc')
      .and.contain('IP Address:127.0.0.1');
    const ca = await readFile(first.ca.cert, 'utf8');
    const admin = await readFile(first.admin.cert, 'utf8');

    // The same range: nothing is made again.
    const apiserver = await readFile(first.apiserver.cert, 'utf8');
    await ensureCerts(dir, '172.16.101.1');
    expect(await readFile(first.apiserver.cert, 'utf8')).to.equal(apiserver);

    // Another prefix (the environment came up at another 127.X): the API server's only, by the same CA.
    const moved = await ensureCerts(dir, '172.16.102.1');
    expect(await names(moved.apiserver.cert))
      .to.contain('IP Address:172.16.102.1')
      .and.not.contain('172.16.101.1');
    expect(await readFile(moved.ca.cert, 'utf8')).to.equal(ca);
    expect(await readFile(moved.admin.cert, 'utf8')).to.equal(admin);
    const { stdout } = await run('openssl', ['verify', '-CAfile', moved.ca.cert, moved.apiserver.cert]);
    expect(stdout).to.contain(': OK');
  });
});
