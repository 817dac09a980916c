// Admission rules of spec.nodeSelector, spec.tolerations and spec.affinity that the schema does
// not express but the API server's Pod validation does: without them a bad value is accepted on
// the RedisCluster and then refused on every apply of its StatefulSet, leaving the cluster stuck.
// Each message names the field and says what Kubernetes expects.
import type { Affinity, NodeSelectorRequirement, PodAffinity, Toleration } from './k8s-types.ts';

// Kubernetes' qualified name: an optional DNS-subdomain prefix and a name of up to 63 characters.
const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

export function isQualifiedName(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const [prefix, name] = slash < 0 ? [undefined, key] : [key.slice(0, slash), key.slice(slash + 1)];
  return NAME.test(name) && (prefix === undefined || (prefix.length <= 253 && PREFIX.test(prefix)));
}

export interface SchedulingSpec {
  readonly nodeSelector?: Record<string, string>;
  readonly tolerations?: readonly Toleration[];
  readonly affinity?: Affinity;
}

export function checkScheduling(spec: SchedulingSpec): string[] {
  const denials: string[] = [];
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) {
    if (!isQualifiedName(key)) denials.push(`spec.nodeSelector: ${JSON.stringify(key)} is not a valid label key`);
    if (!LABEL_VALUE.test(value))
      denials.push(
        `spec.nodeSelector[${key}]: ${JSON.stringify(value)} is not a valid label value (63 characters at most, alphanumeric at both ends)`,
      );
  }
  (spec.tolerations ?? []).forEach((t, i) => denials.push(...checkToleration(t, `spec.tolerations[${i}]`)));
  const node = spec.affinity?.nodeAffinity;
  const required = node?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required && required.nodeSelectorTerms.length === 0)
    denials.push(
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: give at least one term (an empty list matches no node)',
    );
  required?.nodeSelectorTerms.forEach((term, i) =>
    (term.matchExpressions ?? []).forEach((r, j) =>
      denials.push(
        ...checkRequirement(
          r,
          `spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}].matchExpressions[${j}]`,
        ),
      ),
    ),
  );
  node?.preferredDuringSchedulingIgnoredDuringExecution?.forEach((p, i) =>
    (p.preference.matchExpressions ?? []).forEach((r, j) =>
      denials.push(
        ...checkRequirement(
          r,
          `spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference.matchExpressions[${j}]`,
        ),
      ),
    ),
  );
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const)
    denials.push(...checkPodAffinity(spec.affinity?.[kind], `spec.affinity.${kind}`));
  return denials;
}

function checkToleration(t: Toleration, field: string): string[] {
  const out: string[] = [];
  const exists = t.operator === 'Exists';
  if (!t.key && !exists)
    out.push(`${field}: a toleration without a key must have operator Exists (it then matches every taint)`);
  if (t.key && !isQualifiedName(t.key)) out.push(`${field}.key: ${JSON.stringify(t.key)} is not a valid taint key`);
  if (exists && t.value) out.push(`${field}.value: must be empty when operator is Exists`);
  if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute')
    out.push(`${field}.tolerationSeconds: only applies to effect NoExecute; set effect: NoExecute or remove it`);
  return out;
}

function checkRequirement(r: NodeSelectorRequirement, field: string): string[] {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      return values.length === 0 ? [`${field}: operator ${r.operator} needs at least one value`] : [];
    case 'Exists':
    case 'DoesNotExist':
      return values.length > 0 ? [`${field}: operator ${r.operator} takes no values`] : [];
    case 'Gt':
    case 'Lt':
      return values.length === 1 && /^-?\d+$/.test(values[0] ?? '')
        ? []
        : [`${field}: operator ${r.operator} needs exactly one integer value`];
  }
}

function checkPodAffinity(affinity: PodAffinity | undefined, field: string): string[] {
  const terms = [
    ...(affinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t, i) => ({
      t,
      at: `requiredDuringSchedulingIgnoredDuringExecution[${i}]`,
    })),
    ...(affinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((p, i) => ({
      t: p.podAffinityTerm,
      at: `preferredDuringSchedulingIgnoredDuringExecution[${i}].podAffinityTerm`,
    })),
  ];
  return terms.flatMap(({ t, at }) =>
    t.topologyKey
      ? []
      : [`${field}.${at}.topologyKey: required (e.g. kubernetes.io/hostname or topology.kubernetes.io/zone)`],
  );
}
