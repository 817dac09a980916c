// Password rotation end to end, with the operator running as separate processes
// (infra/local/operator-stack.ts): a cluster whose password is in the user's Secret is rolled
// to a changed value, then to another Secret named by the spec, under a client load that
// switches password when the status tells it to. The change reaches the operator by the
// Secret's own event, which carries no data (the resync is set an hour away), and neither
// password appears in a log line, an Event or the status.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startOperatorStack, type OperatorStack } from '../../infra/local/operator-stack.ts';
import { NodePool } from '../../shared/io/redis/connection.ts';
import { observe } from '../../shared/io/redis/observe.ts';
import { bulkLoad, ClientLoad } from '../integration/cluster/client-load.ts';
import { acceptsPassword } from '../support/redis-server.ts';
import { localEnvironment, type LocalEnvironment } from '../support/local-env.ts';
import { ClusterView, isReady } from './observe.ts';

const NAME = 'rotated';
const KEYS = 5_000;
const FIRST = 'first-password-of-the-user-1';
const SECOND = 'second-password-of-the-user-2';
const THIRD = 'third-password-in-another-secret-3';

describe('knredis end to end: password rotation (functions as separate processes, on the local Kubernetes)', function () {
  this.timeout(900_000);
  let env: LocalEnvironment;
  let stack: OperatorStack | undefined;
  let dir: string;
  let ns: string;
  let view: ClusterView;
  let load: ClientLoad | undefined;
  const secret = (name: string, password: string) =>
    env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: ns },
        stringData: { password },
      }),
    });

  /** Waits for the status to tell clients to switch, switches the load, then waits for the end. */
  const rotateTo = async (password: string) => {
    const progress: string[] = [];
    await view.until('clients told to switch', (rc) => {
      progress.push(rc?.status?.operation?.progress ?? '');
      return (rc?.status?.operation?.progress ?? '').includes('clients switch now');
    });
    load!.usePassword(password);
    await view.until('Ready, the rotation done', (rc) => isReady(rc) && !rc?.status?.operation);
    return progress;
  };

  before(async () => {
    env = await localEnvironment();
    ns = `e2e-rotation-${process.pid}`;
    await env.kubectl(['create', 'namespace', ns]);
    dir = await mkdtemp(join(tmpdir(), 'knredis-e2e-rotation-'));
    stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir,
      workers: 1,
      webhookConfigurationName: `knredis-e2e-rotation-${process.pid}`,
      // A rotation must come by the Secret's event (or the spec's), not by a resync.
      extraEnv: { RESYNC_INTERVAL_MS: '3600000' },
    });
    view = new ClusterView(env, ns, NAME);
  });
  after(async function () {
    this.timeout(240_000);
    await load?.stop();
    await load?.close();
    if (stack) {
      await env.kubectl(['delete', 'rediscluster', NAME, '-n', ns, '--wait=false']).catch(() => {});
      await env
        .waitFor(async () => (await view.get()) === undefined, { what: `${NAME} gone`, timeout: 120_000 })
        .catch(() => {});
      await stack.stop();
    }
    if (ns) await env.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("rolls a live cluster to the user's changed Secret under load with zero errors and no restart", async () => {
    await secret('app-redis', FIRST);
    await env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: NAME, namespace: ns },
        spec: {
          masters: 3,
          replicasPerMaster: 1,
          version: '7.0',
          storage: { reclaim: 'Delete' },
          auth: { secretRef: { name: 'app-redis' } },
        },
      }),
    });
    const rc = await view.until('Ready', isReady);
    const pool = new NodePool({ auth: { password: FIRST } });
    try {
      const pods = (await view.pods()).map((p) => ({
        name: p.name,
        address: { ip: p.ip, port: 6379 },
        nodeName: p.node,
      }));
      await bulkLoad(await observe(pods, pool), 'r', KEYS, FIRST);
    } finally {
      await pool.close();
    }
    const seeds = (rc?.status?.shards ?? []).map((s) => ({ ip: s.master?.ip ?? '', port: 6379 }));
    load = new ClientLoad(seeds, 'r', KEYS, FIRST);
    load.start(4);
    const before = (await view.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort();

    await secret('app-redis', SECOND);
    const progress = await rotateTo(SECOND);
    expect(progress.some((p) => /^rotating password: \d\/6 nodes accept the new password/.test(p))).to.equal(true);
    expect((await view.pods()).map((p) => `${p.name} ${p.uid} ${p.restarts}`).sort()).to.deep.equal(before);
    for (const pod of await view.pods()) {
      expect(await acceptsPassword(pod.ip, SECOND), pod.name).to.equal(true);
      expect(await acceptsPassword(pod.ip, FIRST), pod.name).to.equal(false);
    }
    const report = await load.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(report.ops).to.be.greaterThan(0);
    expect(await load.verify()).to.deep.equal([]);
    load.start(4);
  });

  it('rolls to another Secret named by the spec, and says neither password anywhere', async () => {
    await secret('app-redis-next', THIRD);
    await env.kubectl([
      'patch',
      'rediscluster',
      NAME,
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { auth: { secretRef: { name: 'app-redis-next' } } } }),
    ]);
    await rotateTo(THIRD);
    for (const pod of await view.pods()) expect(await acceptsPassword(pod.ip, THIRD), pod.name).to.equal(true);
    const report = await load!.stop();
    expect(report.errors, report.samples.join('\n')).to.equal(0);
    expect(await load!.verify()).to.deep.equal([]);

    const events = JSON.parse(await env.kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as {
      items: { reason: string; message: string }[];
    };
    expect(events.items.filter((e) => e.reason === 'PasswordRotation').length).to.be.greaterThan(0);
    const logs = await Promise.all(Object.values(stack!.logs).map((path) => readFile(path, 'utf8')));
    const said = [...logs, ...events.items.map((e) => e.message), JSON.stringify((await view.get())?.status)].join(
      '\n',
    );
    for (const password of [FIRST, SECOND, THIRD]) expect(said).not.to.contain(password);
  });
});
