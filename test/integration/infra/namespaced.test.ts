// The namespaced install on the real API server: the reconciler runs with the token of the
// knredis-reconcile ServiceAccount bound by infra/overlays/namespaced's Roles (rendered for a
// test namespace) and WATCH_NAMESPACE set. It forms a cluster in its namespace; a cluster of
// another namespace is refused without a call, and the API server would refuse it anyway: the
// ServiceAccount reads no Secret and lists no RedisCluster outside its namespace.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeListClusterKeys } from '../../../functions/kube.ts';
import { namespacedRbacObjects } from '../../../infra/rbac/render.ts';
import { serviceAccountUser } from '../../../infra/rbac/permissions.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, isReady, type Driver } from '../reconcile/harness.ts';

const run = promisify(execFile);

describe('the namespaced install (WATCH_NAMESPACE, Roles instead of ClusterRoles)', function () {
  this.timeout(400_000);
  let api: InstalledApi;
  let drive: Driver;
  let kc: KubeConfig;
  const operator = `knredis-op-${process.pid}`;
  const watched = `ns-watched-${process.pid}`;
  const other = `ns-other-${process.pid}`;
  const rbac = () =>
    namespacedRbacObjects({ watchNamespace: watched, operatorNamespace: operator })
      .map((o) => JSON.stringify(o))
      .join('\n');
  const cluster = (namespace: string, name: string) =>
    api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name, namespace },
        spec: { masters: 3, replicasPerMaster: 0, storage: { reclaim: 'Delete' } },
      }),
    });
  // kubectl answers on stdout, and exits 1 for "no".
  const can = (args: string[]) =>
    run(api.env.kubectlPath, [
      '--kubeconfig',
      api.env.kubeconfigPath,
      'auth',
      'can-i',
      ...args,
      `--as=${serviceAccountUser('knredis-reconcile', operator)}`,
    ]).then(
      (r) => r.stdout.trim(),
      (e: { stdout?: string; message: string }) => e.stdout?.trim() || e.message,
    );

  before(async () => {
    api = await installApi(`knredis-namespaced-${process.pid}`);
    for (const ns of [operator, watched, other]) await api.namespace(ns);
    await api.env.kubectl(['apply', '-f', '-'], { input: rbac() });
    const token = (await api.env.kubectl(['create', 'token', 'knredis-reconcile', '-n', operator])).trim();
    const admin = api.env.kubeConfig();
    const server = admin.getCurrentCluster()!;
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [server],
      users: [{ name: 'knredis-reconcile', token }],
      contexts: [{ name: 'sa', cluster: server.name, user: 'knredis-reconcile' }],
      currentContext: 'sa',
    });
    drive = driver(api, { kubeConfig: kc, watchNamespace: watched });
  });
  after(async () => {
    await drive?.remove(watched, 'mine').catch(() => undefined);
    await api?.env.kubectl(['delete', 'rediscluster', 'theirs', '-n', other, '--wait=false']).catch(() => undefined);
    await api?.env.kubectl(['delete', '--ignore-not-found', '-f', '-'], { input: rbac() }).catch(() => undefined);
    await api?.stop();
  });

  it('gives the reconciler Secrets, RedisClusters and children in its namespace only, nodes cluster-wide', async () => {
    expect(await can(['get', 'secrets', '-n', watched])).to.equal('yes');
    expect(await can(['get', 'secrets', '-n', other])).to.equal('no');
    expect(await can(['get', 'secrets', '--all-namespaces'])).to.equal('no');
    expect(await can(['list', 'redisclusters.cache.redis.io', '--all-namespaces'])).to.equal('no');
    expect(await can(['patch', 'statefulsets', '-n', other])).to.equal('no');
    expect(await can(['list', 'nodes'])).to.equal('yes');
  });

  it('resyncs the RedisClusters of its namespace only (a cluster-wide list is forbidden to it)', async () => {
    await cluster(watched, 'mine');
    await cluster(other, 'theirs');
    expect(await kubeListClusterKeys(kc, watched)()).to.deep.equal([`${watched}/mine`]);
    const wide = await kubeListClusterKeys(kc)()
      .then(() => 'listed')
      .catch((error: { code?: number }) => error.code);
    expect(wide).to.equal(403);
  });

  it('forms the cluster of its namespace with those permissions', async () => {
    const rc = await drive.until(`${watched}/mine`, 'mine Ready', isReady, 240_000);
    expect(rc?.status?.slotsCovered).to.equal(16384);
  });

  it("refuses another namespace's cluster: no finalizer, no child there", async () => {
    await drive.once(`${other}/theirs`);
    const theirs = JSON.parse(await api.env.kubectl(['get', 'rediscluster', 'theirs', '-n', other, '-o', 'json'])) as {
      metadata: { finalizers?: string[] };
    };
    expect(theirs.metadata.finalizers ?? []).to.deep.equal([]);
    expect(
      (await api.env.kubectl(['get', 'statefulsets,configmaps,secrets', '-n', other, '-o', 'name'])).trim(),
    ).to.not.match(/theirs/);
  });
});
