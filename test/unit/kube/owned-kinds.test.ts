import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { childKinds } from '../../../functions/ingest/to-keys.ts';
import { watchedResources } from '../../../functions/event-source/watched.ts';
import { identities } from '../../../infra/rbac/permissions.ts';
import { API_VERSION_V1BETA1, BACKUP_KIND, KIND, MANAGED_SELECTOR } from '../../../shared/core/api/group.ts';
import { apiVersionOf, CHILD_KINDS } from '../../../shared/core/resources/owned-kinds.ts';

const table = CHILD_KINDS.map((k) => `${apiVersionOf(k)}/${k.kind}`).sort();

describe('owned-kinds (the child kinds, declared once)', () => {
  it('is what Knative ApiServerSource watches in infra/knative/apiserversource.yaml, by the managed-by label', () => {
    // the source of RedisClusters and their children (knredis-secrets sends Secrets as references)
    const source = parseAllDocuments(readFileSync('infra/knative/apiserversource.yaml', 'utf8'))
      .map(
        (d) =>
          d.toJSON() as {
            metadata: { name: string };
            spec: {
              resources: { apiVersion: string; kind: string; selector?: { matchLabels: Record<string, string> } }[];
            };
          },
      )
      .find((o) => o.metadata.name === 'knredis')!;
    const children = source.spec.resources.filter((r) => r.kind !== KIND && r.kind !== BACKUP_KIND);
    expect(children.map((r) => `${r.apiVersion}/${r.kind}`).sort()).to.deep.equal(table);
    for (const r of children)
      expect(r.selector?.matchLabels).to.deep.equal({ 'app.kubernetes.io/managed-by': 'knredis' });
    for (const kind of [KIND, BACKUP_KIND])
      expect(
        source.spec.resources.filter((r) => r.kind === kind).map((r) => [r.apiVersion, r.selector]),
        kind,
      ).to.deep.equal([[API_VERSION_V1BETA1, undefined]]);
  });

  it('is what the built-in event source watches, and what ingest maps to an owner', () => {
    // Secrets too, unlabelled (a referenced one is the user's), sent as references only
    expect(watchedResources().filter((r) => r.kind === 'Secret')).to.have.length(1);
    // backups, unlabelled (a user's carries no label of ours), mapped by spec.clusterName
    expect(watchedResources().filter((r) => r.kind === BACKUP_KIND && r.labelSelector === undefined)).to.have.length(1);
    const watched = watchedResources().filter((r) => r.kind !== KIND && r.kind !== BACKUP_KIND && r.kind !== 'Secret');
    expect(watched.map((r) => `${r.apiVersion}/${r.kind}`).sort()).to.deep.equal(table);
    expect(watched.every((r) => r.labelSelector === MANAGED_SELECTOR)).to.equal(true);
    expect([...childKinds].sort()).to.deep.equal(CHILD_KINDS.map((k) => `${k.group}/${k.kind}`).sort());
    expect(CHILD_KINDS.some((k) => k.kind === 'Secret')).to.equal(false);
  });

  it('is what RBAC lets each watcher and the worker cache list and watch', () => {
    for (const name of ['knredis-event-source', 'knredis-apiserversource', 'knredis-reconcile']) {
      const perms = identities.find((i) => i.name === name)!.permissions;
      for (const k of CHILD_KINDS) {
        const p = perms.find((x) => x.group === k.group && x.resource === k.plural);
        expect(p?.verbs, `${name} ${k.plural}`).to.include.members(['list', 'watch']);
      }
    }
  });
});
