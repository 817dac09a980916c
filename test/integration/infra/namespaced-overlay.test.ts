// infra/overlays/namespaced as kustomize builds it: Roles in the watched namespace instead of
// ClusterRoles, ClusterRoles only for what belongs to no namespace, WATCH_NAMESPACE set, and
// the whole accepted by the real API server (server-side dry run).
import { expect } from 'chai';
import { OVERLAY_WATCH_NAMESPACE } from '../../../infra/rbac/render.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';
import { buildOverlay, find, NAMESPACE, type K8sObject } from './overlays.ts';

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
const rulesOf = (o: K8sObject) => (o as unknown as { rules: Rule[] }).rules;

describe('infra/overlays/namespaced', function () {
  this.timeout(180_000);
  let env: LocalEnvironment;
  let objects: K8sObject[];

  before(async () => {
    env = await localEnvironment();
    objects = (await buildOverlay(env.kubectlPath, 'namespaced')).objects;
  });

  it('grants cluster-wide only reads of Nodes and StorageClasses; everything else in the watched namespace', () => {
    const clusterRoles = objects.filter((o) => o.kind === 'ClusterRole');
    expect(clusterRoles.map((o) => o.metadata.name).sort()).to.deep.equal([
      'knredis-reconcile-cluster-scoped',
      'knredis-webhooks-cluster-scoped',
    ]);
    for (const role of clusterRoles)
      for (const rule of rulesOf(role)) {
        expect(
          rule.resources.every((r) => r === 'nodes' || r === 'storageclasses'),
          role.metadata.name,
        ).to.equal(true);
        expect(
          rule.verbs.every((v) => ['get', 'list', 'watch'].includes(v)),
          role.metadata.name,
        ).to.equal(true);
      }
    const roles = objects.filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding');
    expect(roles.map((o) => o.metadata.namespace)).to.deep.equal(roles.map(() => OVERLAY_WATCH_NAMESPACE));
    const secrets = rulesOf(find(objects, 'Role', 'knredis-reconcile')!).filter((r) => r.resources.includes('secrets'));
    // list: observe reads a cluster's operator Secrets with one labelled list; no watch and no
    // delete (owner references remove them), so no Secret's change streams to the operator
    expect(secrets.flatMap((r) => r.verbs).sort()).to.deep.equal(['create', 'get', 'list', 'patch']);
  });

  it('tells every function the namespace, and the webhook judges only that one', () => {
    const config = find(objects, 'ConfigMap', 'knredis-config')!.data as Record<string, string>;
    expect(config.WATCH_NAMESPACE).to.equal(OVERLAY_WATCH_NAMESPACE);
    const validating = find(objects, 'ValidatingWebhookConfiguration', 'knredis-redisclusters')!;
    expect((validating.webhooks as { namespaceSelector?: unknown }[])[0]?.namespaceSelector).to.deep.equal({
      matchLabels: { 'kubernetes.io/metadata.name': OVERLAY_WATCH_NAMESPACE },
    });
  });

  it('is accepted by the API server (server-side dry run)', async () => {
    const certManager = new Set(['Certificate', 'Issuer']);
    const applied = objects.filter((o) => !certManager.has(o.kind));
    const created: string[] = [];
    for (const ns of [NAMESPACE, OVERLAY_WATCH_NAMESPACE])
      if (!(await env.kubectl(['get', 'namespace', ns, '--ignore-not-found', '-o', 'name'])).trim()) {
        await env.kubectl(['create', 'namespace', ns]);
        created.push(ns);
      }
    try {
      const out = await env.kubectl(
        ['apply', '--server-side', '--force-conflicts', '--field-manager', 'knredis', '--dry-run=server', '-f', '-'],
        { input: applied.map((o) => JSON.stringify(o)).join('\n') },
      );
      expect(out.trim().split('\n')).to.have.length(applied.length);
      expect(out).to.contain(`role.rbac.authorization.k8s.io/knredis-reconcile serverside-applied (server dry run)`);
    } finally {
      for (const ns of created)
        await env.kubectl(['delete', 'namespace', ns, '--timeout=90s'], { timeoutMs: 120_000 }).catch(() => {});
    }
  });
});
