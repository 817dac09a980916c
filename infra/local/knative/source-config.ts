// K_SOURCE_CONFIG of Knative's ApiServerSource adapter, made from infra/knative/apiserversource.yaml
// the way Knative's own reconciler makes it (eventing v0.50.0,
// pkg/reconciler/apiserversource/resources/receive_adapter.go): one source of truth for what is
// watched, whether Knative's controller or this repository starts the adapter.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../paths.ts';

export const apiServerSourceFile = join(repoRoot, 'infra', 'knative', 'apiserversource.yaml');

export type EventMode = 'Resource' | 'Reference';

interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { key: string; operator: string; values?: string[] }[];
}

export interface ApiServerSourceSpec {
  readonly mode?: string;
  readonly namespaceSelector?: LabelSelector;
  readonly resources: readonly { apiVersion: string; kind: string; selector?: LabelSelector }[];
  /** The sink's OIDC audience: the adapter sends a token for it. */
  readonly sink?: { readonly audience?: string };
}

/** The adapter's JSON config (knative.dev/eventing/pkg/adapter/apiserver.Config). */
export interface AdapterConfig {
  readonly namespaces: string[];
  readonly allNamespaces: boolean;
  readonly resources: { gvr: { Group: string; Version: string; Resource: string }; selector?: string }[];
  readonly mode: string;
}

/** apimachinery's meta.UnsafeGuessKindToResource: "RedisCluster" -> "redisclusters". */
export function guessResource(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key. */
export function selectorString(selector: LabelSelector): string {
  const parts: [string, string][] = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => [k, `${k}=${v}`]);
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    const op = { In: `${e.key} in (${values})`, NotIn: `${e.key} notin (${values})`, Exists: e.key };
    const text = (op as Record<string, string>)[e.operator] ?? (e.operator === 'DoesNotExist' ? `!${e.key}` : '');
    if (!text) throw new Error(`label selector operator ${e.operator} is not supported`);
    parts.push([e.key, text]);
  }
  return parts
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, text]) => text)
    .join(',');
}

/** The ApiServerSource named `name` in the file (knredis: RedisClusters and their children;
 * knredis-secrets: Secrets, as references). */
export function readApiServerSource(file = apiServerSourceFile, name = 'knredis'): ApiServerSourceSpec {
  const doc = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJSON() as { kind?: string; metadata?: { name?: string }; spec?: ApiServerSourceSpec })
    .find((d) => d?.metadata?.name === name);
  if (!doc) throw new Error(`${file} has no ApiServerSource named ${name}`);
  if (doc.kind !== 'ApiServerSource' || !doc.spec?.resources?.length)
    throw new Error(`${file} is not an ApiServerSource with resources`);
  return doc.spec;
}

/** The adapter's config for `spec`, in `mode` (default: the spec's own). An empty
 * namespaceSelector watches all namespaces, as Knative's reconciler decides. */
export function toAdapterConfig(spec: ApiServerSourceSpec, mode?: EventMode): AdapterConfig {
  const selector = spec.namespaceSelector;
  const all = selector !== undefined && !selector.matchLabels && !selector.matchExpressions?.length;
  if (!all) throw new Error('only an empty namespaceSelector (all namespaces) is supported here');
  return {
    namespaces: [],
    allNamespaces: true,
    resources: spec.resources.map((r) => {
      const [group, version] = r.apiVersion.includes('/') ? r.apiVersion.split('/') : ['', r.apiVersion];
      const gvr = { Group: group!, Version: version!, Resource: guessResource(r.kind) };
      return r.selector ? { gvr, selector: selectorString(r.selector) } : { gvr };
    }),
    mode: mode ?? spec.mode ?? 'Reference',
  };
}
