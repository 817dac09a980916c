// The RBAC manifests on the real API server: each ServiceAccount may do exactly what
// infra/rbac/permissions.ts lists (the calls the code makes) and nothing else on the resources
// knredis touches, as the API server's authorizer answers it (SubjectAccessReview, what
// `kubectl auth can-i --as` asks; one such kubectl call shows they agree). And the list is
// enough: the real reconciler, with the reconcile ServiceAccount's token, takes a RedisCluster
// to Ready and through its deletion (a forbidden call would fail it).
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AuthorizationV1Api, KubeConfig } from '@kubernetes/client-node';
import { createReconcile } from '../../../functions/reconcile/reconcile.ts';
import { runAbortController, soleOwner } from '../../../shared/io/queue/queue-worker.ts';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { installApi } from '../api/api-fixture.ts';
import { identities, serviceAccountUser, tokenless, type RbacVerb } from '../../../infra/rbac/permissions.ts';
import { rbacFiles } from '../../../infra/rbac/render.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';
import { NAMESPACE } from './overlays.ts';

const run = promisify(execFile);
const verbs: RbacVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const testNamespace = 'some-team';

describe('infra/rbac on the API server', function () {
  this.timeout(180_000);
  let env: LocalEnvironment;
  let auth: AuthorizationV1Api;
  let createdNamespace = false;
  // The cluster-wide install's files; the namespaced overlay's Roles are namespaced.test.ts'.
  const manifests = Object.entries(rbacFiles)
    .filter(([path]) => !path.startsWith('infra/overlays/namespaced/'))
    .map(([, render]) => render())
    .join('---\n');

  before(async function () {
    env = await localEnvironment();
    auth = env.kubeConfig().makeApiClient(AuthorizationV1Api);
    createdNamespace = !(await env.kubectl(['get', 'namespace', NAMESPACE, '--ignore-not-found', '-o', 'name'])).trim();
    if (createdNamespace) await env.kubectl(['create', 'namespace', NAMESPACE]);
    await env.kubectl(['apply', '--server-side', '--field-manager', 'knredis-rbac-test', '-f', '-'], {
      input: manifests,
    });
  });

  after(async function () {
    if (!env) return;
    await env
      .kubectl(['delete', '--ignore-not-found', '--wait=false', '-f', '-'], { input: manifests })
      .catch(() => {});
    if (createdNamespace)
      await env.kubectl(['delete', 'namespace', NAMESPACE, '--timeout=90s'], { timeoutMs: 120_000 }).catch(() => {});
  });

  const allowed = async (user: string, verb: string, group: string, resource: string) => {
    const [plural, subresource] = resource.split('/');
    const review = await auth.createSubjectAccessReview({
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`, 'system:authenticated'],
          resourceAttributes: {
            namespace: testNamespace,
            verb,
            group,
            resource: plural,
            ...(subresource ? { subresource } : {}),
          },
        },
      },
    });
    return review.status?.allowed === true;
  };

  // Every resource any identity touches: each identity is checked on all of them.
  const universe = [
    ...new Map(identities.flatMap((i) => i.permissions).map((p) => [`${p.group}|${p.resource}`, p])).values(),
  ];

  for (const identity of [...identities, ...tokenless.map((t) => ({ ...t, permissions: [] }))]) {
    it(`lets ${identity.name} do exactly its listed calls, in any namespace`, async function () {
      const user = serviceAccountUser(identity.name);
      const mismatches: string[] = [];
      const checks = universe.flatMap((p) => verbs.map((verb) => ({ group: p.group, resource: p.resource, verb })));
      for (let i = 0; i < checks.length; i += 16) {
        await Promise.all(
          checks.slice(i, i + 16).map(async ({ group, resource, verb }) => {
            const listed = identity.permissions.some(
              (p) => p.group === group && p.resource === resource && p.verbs.includes(verb),
            );
            if ((await allowed(user, verb, group, resource)) !== listed)
              mismatches.push(
                `${verb} ${group || 'core'}/${resource}: ${listed ? 'denied but listed' : 'allowed but not listed'}`,
              );
          }),
        );
      }
      expect(mismatches).to.deep.equal([]);
    });
  }

  it('agrees with kubectl auth can-i --as the ServiceAccount', async function () {
    const as = `--as=${serviceAccountUser('knredis-reconcile')}`;
    // It answers on stdout, and exits 1 for "no".
    const can = (args: string[]) =>
      run(env.kubectlPath, [
        '--kubeconfig',
        env.kubeconfigPath,
        'auth',
        'can-i',
        ...args,
        as,
        '-n',
        testNamespace,
      ]).then(
        (r) => r.stdout.trim(),
        (e: { stdout?: string; message: string }) => e.stdout?.trim() || e.message,
      );
    expect(await can(['patch', 'statefulsets.apps'])).to.equal('yes');
    expect(await can(['list', 'nodes'])).to.equal('yes');
    expect(await can(['delete', 'secrets'])).to.equal('no');
  });

  it('is enough for the real reconciler: as knredis-reconcile it forms a RedisCluster, records Events and finalizes it', async function () {
    const api = await installApi(`knredis-rbac-${process.pid}`);
    const ns = await api.namespace(`rbac-${process.pid}`);
    try {
      const token = (
        await env.kubectl(['create', 'token', 'knredis-reconcile', '-n', NAMESPACE, '--duration=1h'])
      ).trim();
      const admin = env.kubeConfig();
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [admin.getCurrentCluster()!],
        users: [{ name: 'knredis-reconcile', token }],
        contexts: [{ name: 'sa', cluster: admin.getCurrentCluster()!.name, user: 'knredis-reconcile' }],
        currentContext: 'sa',
      });
      const warnings: string[] = [];
      const log = createLogger({
        level: 'warn',
        name: 'rbac-test',
        destination: {
          write: (line: string) => {
            warnings.push(line);
          },
        },
      });
      const reconcile = createReconcile({ kubeConfig: kc });
      const get = async () =>
        JSON.parse(
          (await env.kubectl(['get', 'rediscluster', 'rbac', '-n', ns, '-o', 'json', '--ignore-not-found'])) || 'null',
        ) as RedisCluster | null;
      const until = async (what: string, done: (rc: RedisCluster | null) => boolean) => {
        const deadline = Date.now() + 240_000;
        for (let runs = 0; ; runs++) {
          const outcome = await reconcile(`${ns}/rbac`, {
            signal: runAbortController().signal,
            log,
            reconcileId: `rbac-${runs}`,
            failures: 0,
            assertOwner: soleOwner,
          }).catch((error: Error & { code?: number }) => {
            if (error.code === 403)
              throw new Error(
                `forbidden for knredis-reconcile (add it to infra/rbac/permissions.ts): ${error.message}`,
              );
            return { kind: 'error' as const };
          });
          if (done(await get())) return;
          if (Date.now() > deadline)
            throw new Error(`timed out waiting for ${what}: ${JSON.stringify((await get())?.status?.conditions)}`);
          await new Promise((r) => setTimeout(r, outcome.kind === 'requeueAfter' ? Math.min(outcome.ms, 1_000) : 500));
        }
      };
      await env.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'cache.redis.io/v1beta1',
          kind: 'RedisCluster',
          metadata: { name: 'rbac', namespace: ns },
          spec: { masters: 3, replicasPerMaster: 0, storage: { size: '1Gi', reclaim: 'Delete' } },
        }),
      });
      await until(
        'Ready',
        (rc) => rc?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      );
      const events = JSON.parse(await env.kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as {
        items: { reportingComponent?: string }[];
      };
      expect(events.items.filter((e) => e.reportingComponent === 'knredis').length).to.be.greaterThan(0);
      expect(warnings.filter((w) => /forbidden|could not record event/i.test(w))).to.deep.equal([]);
      await env.kubectl(['delete', 'rediscluster', 'rbac', '-n', ns, '--wait=false']);
      await until('deleted', (rc) => rc === null);
      await api.env.waitFor(async () => (await env.kubectl(['get', 'pvc', '-n', ns, '-o', 'name'])).trim() === '', {
        what: 'PVCs deleted',
        timeout: 60_000,
      });
    } finally {
      await api.stop();
    }
  });
});
