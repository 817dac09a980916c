// infra/setup/setup.mjs as the predev hook runs it, on a machine made of a PATH directory: the
// facts it reads, the commands it runs, and that it runs none when it cannot finish. apt-get
// (and sudo, when the test is not root) are stand-ins that write a log and the commands.
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { versionOf, versions } from '../../../infra/local/paths.ts';
import { waitFor } from '../../support/wait-for.ts';

const run = promisify(execFile);
const setup = fileURLToPath(new URL('../../../infra/setup/setup.mjs', import.meta.url));

const fakeAptGet = `#!/bin/sh
# Logs what it was asked; 'install' puts each package's command in this directory.
here=\${0%/*}
echo "$DEBIAN_FRONTEND $*" >>"$here/apt.log"
[ "$1" = install ] || exit 0
for p in "$@"; do
  case $p in redis-server) c=redis-server ;; redis-tools) c=redis-cli ;; openssl) c=openssl ;; *) continue ;; esac
  /bin/ln -s /bin/true "$here/$c"
done
`;
const fakeSudo = '#!/bin/sh\n[ "$1" = -n ] && shift\nexec "$@"\n';

describe('infra/setup/setup.mjs', function () {
  this.timeout(120_000);
  let dir: string;
  let bin: string;
  let cache: string;
  const setUp = (purpose: string) =>
    run(process.execPath, [setup, purpose], { env: { PATH: bin, HOME: dir, KNREDIS_CACHE: cache } }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (e: { code: number; stderr: string }) => e,
    );
  const aptLog = () => readFile(join(bin, 'apt.log'), 'utf8').catch(() => '');

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'knredis-setup-'));
    bin = join(dir, 'bin');
    // A built control plane and redis_exporter (the builds are build-binaries.sh's and
    // build-exporter.sh's, tested by every local:up).
    const { kube, etcd } = versions();
    cache = join(dir, 'cache');
    const built = join(cache, `k8s-${kube}-etcd-${etcd}`, 'bin');
    await mkdir(built, { recursive: true });
    await mkdir(bin);
    for (const b of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl'])
      await symlink('/bin/true', join(built, b));
    const exporter = join(cache, `redis-exporter-${versionOf('REDIS_EXPORTER_VERSION')}`, 'bin');
    await mkdir(exporter, { recursive: true });
    await symlink('/bin/true', join(exporter, 'redis_exporter'));
    for (const c of ['sh', 'env', 'flock'])
      await symlink(join('/usr/bin', c), join(bin, c)).catch(() => symlink(join('/bin', c), join(bin, c)));
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('says what to install, and runs nothing, when packages are missing and there is no apt-get', async function () {
    const { code, stderr } = await setUp('dev');
    expect(code).to.equal(1);
    expect(stderr)
      .to.contain('missing: redis-server (')
      .and.contain('openssl (')
      .and.contain('no apt-get')
      .and.contain('nothing was changed');
    expect(stderr).not.to.contain('$ ');
  });

  const withAptGet = async () => {
    await writeFile(join(bin, 'apt-get'), fakeAptGet);
    await writeFile(join(bin, 'sudo'), fakeSudo);
    await chmod(join(bin, 'apt-get'), 0o755);
    await chmod(join(bin, 'sudo'), 0o755);
  };

  it('installs the missing packages with apt-get, then finds them in place and runs nothing', async function () {
    await withAptGet();

    const first = await setUp('dev');
    expect(first.code, first.stderr).to.equal(0);
    expect(await aptLog()).to.equal(
      'noninteractive update -q\nnoninteractive install -y -q redis-server redis-tools openssl\n',
    );
    expect(first.stderr)
      .to.contain('Debian packages: missing: redis-server')
      .and.contain('Debian packages: done in')
      .and.contain('ready in');

    const second = await setUp('dev');
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stderr).to.match(
      /in place: Node [\d.]+, node_modules, redis-server, redis-cli, openssl, control plane, redis_exporter/,
    );
    expect(second.stderr).not.to.contain('$ ');
    expect((await aptLog()).split('\n'), 'apt-get is not run again').to.have.length(3);
  });

  it('waits for a set-up already running on the machine, then installs only what that one did not', async function () {
    await withAptGet();
    // The other set-up holds the lock until told (a line on its stdin).
    const other = spawn('flock', [join(cache, 'setup.lock'), 'sh', '-c', 'echo held; read line'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let held = '';
    other.stdout.on('data', (s: Buffer) => {
      held += s.toString();
    });
    await waitFor(() => held.includes('held'), { what: 'the other set-up holding the lock' });
    let stderr = '';
    const waiting = run(process.execPath, [setup, 'dev'], { env: { PATH: bin, HOME: dir, KNREDIS_CACHE: cache } });
    waiting.child.stderr!.on('data', (s: Buffer) => {
      stderr += s.toString();
    });
    try {
      await waitFor(() => stderr.includes('another set-up is running on this machine; waiting for it'), {
        what: 'the second set-up waiting',
      });
      // Meanwhile the other one installs redis-server and openssl.
      for (const c of ['redis-server', 'openssl']) await symlink('/bin/true', join(bin, c));
    } finally {
      other.stdin.end('go\n');
    }
    await waiting;
    expect(await aptLog()).to.equal('noninteractive update -q\nnoninteractive install -y -q redis-tools\n');
    expect(stderr).to.contain('in place: Node');
  });
});
