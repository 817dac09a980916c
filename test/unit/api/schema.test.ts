import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { generatedFiles } from '../../../infra/crds/generate.ts';
import { FORBIDDEN_CONFIG } from '../../../shared/core/api/config-keys.ts';
import { redisClusterCrd } from '../../../shared/core/api/crd.ts';
import { applySchemaDefaults, withDefaults } from '../../../shared/core/api/defaults.ts';
import { configSchema } from '../../../shared/core/api/schema-config.ts';
import type { JSONSchemaProps, SchemaFor } from '../../../shared/core/api/schema-types.ts';
import { rootSchemaV1alpha1 } from '../../../shared/core/api/schema-v1alpha1.ts';
import { rootSchemaV1beta1 } from '../../../shared/core/api/schema-v1beta1.ts';

// Compile-time checks of SchemaFor: `npm test` type-checks this file, and an expected error
// that does not occur is itself an error, so each line proves the compiler catches that drift.
interface Shape {
  name: string;
  size?: number;
  mode?: 'a' | 'b';
}
// prettier-ignore
// @ts-expect-error a property the type does not have
export const extra: SchemaFor<Shape> = { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' }, mode: { type: 'string', enum: ['a', 'b'] }, colour: { type: 'string' } } };
// prettier-ignore
// @ts-expect-error a property of the type is missing
export const missing: SchemaFor<Shape> = { type: 'object', properties: { name: { type: 'string' }, mode: { type: 'string', enum: ['a', 'b'] } } };
// prettier-ignore
// @ts-expect-error a wrong JSON type
export const wrongType: SchemaFor<Shape> = { type: 'object', properties: { name: { type: 'integer' }, size: { type: 'integer' }, mode: { type: 'string', enum: ['a', 'b'] } } };
// prettier-ignore
// @ts-expect-error a string union without its enum
export const noEnum: SchemaFor<Shape> = { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' }, mode: { type: 'string' } } };
// prettier-ignore
// @ts-expect-error an optional field listed as required
export const wrongRequired: SchemaFor<Shape> = { type: 'object', required: ['size'], properties: { name: { type: 'string' }, size: { type: 'integer' }, mode: { type: 'string', enum: ['a', 'b'] } } };
// prettier-ignore
export const right: SchemaFor<Shape> = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, size: { type: 'integer' }, mode: { type: 'string', enum: ['a', 'b'] } } };

function walk(schema: JSONSchemaProps, path: string, visit: (s: JSONSchemaProps, path: string) => void): void {
  visit(schema, path);
  for (const [k, p] of Object.entries(schema.properties ?? {})) walk(p, `${path}.${k}`, visit);
  if (schema.items) walk(schema.items, `${path}[]`, visit);
  if (schema.additionalProperties) walk(schema.additionalProperties, `${path}{}`, visit);
}

describe('api/schema', () => {
  for (const [path, render] of Object.entries(generatedFiles)) {
    it(`is committed as generated in ${path} (run npx tsx infra/crds/generate.ts)`, () => {
      expect(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')).to.equal(render());
    });
  }

  it('renders a CRD whose YAML parses back to the object built from the schemas', () => {
    const file = generatedFiles['infra/crds/redisclusters.cache.redis.io.yaml']!();
    expect(parse(file)).to.deep.equal(JSON.parse(JSON.stringify(redisClusterCrd())));
  });

  for (const [version, root] of [
    ['v1beta1', rootSchemaV1beta1],
    ['v1alpha1', rootSchemaV1alpha1],
  ] as const) {
    it(`describes every field of ${version} spec and status (kubectl explain)`, () => {
      const undocumented: string[] = [];
      for (const part of ['spec', 'status'] as const) {
        walk(root.properties![part]!, part, (s, path) => {
          if (!path.endsWith('[]') && !path.endsWith('{}') && !s.description) undocumented.push(path);
        });
      }
      expect(undocumented).to.deep.equal([]);
    });

    it(`gives every ${version} CEL rule a message written for people`, () => {
      const rules: string[] = [];
      walk(root, '', (s) =>
        s['x-kubernetes-validations']?.forEach((r) => {
          if (!r.message || r.message.length < 20) rules.push(r.rule);
        }),
      );
      expect(rules).to.deep.equal([]);
    });
  }

  it('refuses each forbidden config directive with its own rule and reason', () => {
    const messages = (configSchema['x-kubernetes-validations'] ?? []).map((r) => r.message ?? '');
    for (const group of FORBIDDEN_CONFIG) {
      for (const key of group.keys) expect(messages).to.include(`${key} cannot be set: ${group.reason}`);
      for (const prefix of group.prefixes) expect(messages).to.include(`${prefix}* cannot be set: ${group.reason}`);
    }
  });

  it('fills defaults parent first, as the API server does', () => {
    expect(withDefaults({})).to.deep.equal({
      masters: 3,
      replicasPerMaster: 1,
      version: '7.0',
      storage: { size: '1Gi', reclaim: 'Retain' },
    });
    expect(
      withDefaults({ masters: 5, storage: { className: 'x' }, exporter: {}, auth: { secretRef: { name: 's' } } }),
    ).to.deep.equal({
      masters: 5,
      replicasPerMaster: 1,
      version: '7.0',
      storage: { className: 'x', size: '1Gi', reclaim: 'Retain' },
      exporter: { enabled: false },
      auth: { secretRef: { name: 's', key: 'password' } },
    });
  });

  it('does not change the value it defaults', () => {
    const spec = { masters: 4 };
    applySchemaDefaults(rootSchemaV1beta1.properties!.spec!, spec);
    expect(spec).to.deep.equal({ masters: 4 });
  });

  it('has no defaults in v1alpha1, so a v1alpha1 object reads back as written', () => {
    const defaults: string[] = [];
    walk(rootSchemaV1alpha1, '', (s, path) => {
      if (s.default !== undefined) defaults.push(path);
    });
    expect(defaults).to.deep.equal([]);
  });
});
