// The schema of spec.config (both versions): a map of redis.conf directives, with CEL rules
// that refuse the directives the operator owns (config-keys.ts), each with its reason.
import { FORBIDDEN_CONFIG, type ForbiddenConfigGroup } from './config-keys.ts';
import type { SchemaFor, ValidationRule } from './schema-types.ts';

const cel = (s: string) => JSON.stringify(s); // a CEL double-quoted string literal

// One rule per directive, with `in` (a map lookup): the API server's cost estimate of a rule
// that lists offending keys (filter + join over keys of unbounded length) exceeds its budget.
// Keys must be lower case (first rule), so exact names suffice.
function forbiddenRules(group: ForbiddenConfigGroup): ValidationRule[] {
  return [
    ...group.keys.map((key) => ({
      rule: `!(${cel(key)} in self)`,
      message: `${key} cannot be set: ${group.reason}`,
      reason: 'FieldValueForbidden' as const,
    })),
    ...group.prefixes.map((prefix) => ({
      rule: `!self.exists(k, k.startsWith(${cel(prefix)}))`,
      message: `${prefix}* cannot be set: ${group.reason}`,
      reason: 'FieldValueForbidden' as const,
    })),
  ];
}

export const configSchema: SchemaFor<Record<string, string>> = {
  type: 'object',
  description:
    'redis.conf settings, directive name to value (e.g. maxmemory-policy: allkeys-lru), applied to every node. ' +
    'Directives the operator owns (cluster-*, port, bind, dir, requirepass, masterauth, rename-command, replicaof, ...) are refused.',
  maxProperties: 200,
  additionalProperties: { type: 'string', maxLength: 1024 },
  'x-kubernetes-validations': [
    {
      rule: "self.all(k, k.matches('^[a-z0-9][a-z0-9-]*$'))",
      message: 'keys must be redis.conf directives in lower case, such as maxmemory-policy',
    },
    {
      rule: 'self.all(k, !self[k].contains("\\n") && !self[k].contains("\\r"))',
      message: 'values must be on one line: a line break would add another redis.conf directive',
    },
    ...FORBIDDEN_CONFIG.flatMap(forbiddenRules),
  ],
};
