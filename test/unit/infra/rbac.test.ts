import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { identities, tokenless } from '../../../infra/rbac/permissions.ts';
import { rbacFiles, rbacObjects, rulesOf } from '../../../infra/rbac/render.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('infra/rbac', function () {
  for (const [path, render] of Object.entries(rbacFiles)) {
    it(`is committed as generated in ${path} (run npx tsx infra/rbac/generate.ts)`, function () {
      expect(readFileSync(root + path, 'utf8')).to.equal(render());
    });
  }
  it('grants each identity exactly its listed (group, resource, verb) triples', function () {
    for (const identity of identities) {
      const granted = rulesOf(identity)
        .flatMap((r) => {
          const rule = r as { apiGroups: string[]; resources: string[]; verbs: string[] };
          return rule.apiGroups.flatMap((g) =>
            rule.resources.flatMap((res) => rule.verbs.map((v) => `${g}/${res}:${v}`)),
          );
        })
        .sort();
      const listed = identity.permissions.flatMap((p) => p.verbs.map((v) => `${p.group}/${p.resource}:${v}`)).sort();
      expect(granted, identity.name).to.deep.equal(listed);
    }
  });
  it('puts no wildcard anywhere and gives token-less ServiceAccounts to functions that never call the API', function () {
    const text = Object.values(rbacFiles)
      .map((r) => r())
      .join('\n');
    expect(text).to.not.contain("'*'").and.not.contain('"*"').and.not.match(/- \*$/m);
    const accounts = rbacObjects().filter((o) => o.kind === 'ServiceAccount') as {
      metadata: { name: string };
      automountServiceAccountToken?: boolean;
    }[];
    for (const sa of tokenless)
      expect(accounts.find((a) => a.metadata.name === sa.name)?.automountServiceAccountToken).to.equal(false);
  });
  it('watches Secrets only through an ApiServerSource in Reference mode (resource mode would put their data in events)', function () {
    const sources = parseAllDocuments(readFileSync(root + 'infra/knative/apiserversource.yaml', 'utf8')).map(
      (d) => d.toJS() as { spec: { mode: string; resources: { kind: string }[] } },
    );
    const watching = sources.filter((s) => s.spec.resources.some((r) => r.kind === 'Secret'));
    expect(watching.map((s) => s.spec.mode)).to.deep.equal(['Reference']);
    expect(
      sources.filter((s) => s.spec.mode !== 'Reference').flatMap((s) => s.spec.resources.map((r) => r.kind)),
    ).not.to.include('Secret');
  });
});
