// Container environment: `value` (with $(VAR) expansion), `valueFrom` (fieldRef, secretKeyRef,
// configMapKeyRef, resourceFieldRef) and `envFrom`. Pure: the ConfigMaps and Secrets a pod
// refers to are fetched by the caller (see `referencedSources`) and passed in. Error messages
// name keys and objects, never values.
import type { V1ConfigMap, V1Container, V1Pod, V1Secret } from '@kubernetes/client-node';

export interface EnvSources {
  readonly pod: V1Pod;
  readonly podIP: string;
  readonly hostIP: string;
  /** name -> object, or null when it does not exist. */
  readonly configMaps: ReadonlyMap<string, V1ConfigMap | null>;
  readonly secrets: ReadonlyMap<string, V1Secret | null>;
}

export type EnvResult = { ok: true; env: Record<string, string> } | { ok: false; message: string };

/** Names of the ConfigMaps and Secrets the containers' env and envFrom refer to. */
export function referencedSources(containers: readonly V1Container[]): {
  configMaps: Set<string>;
  secrets: Set<string>;
} {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  for (const c of containers) {
    for (const e of c.env ?? []) {
      if (e.valueFrom?.configMapKeyRef?.name) configMaps.add(e.valueFrom.configMapKeyRef.name);
      if (e.valueFrom?.secretKeyRef?.name) secrets.add(e.valueFrom.secretKeyRef.name);
    }
    for (const f of c.envFrom ?? []) {
      if (f.configMapRef?.name) configMaps.add(f.configMapRef.name);
      if (f.secretRef?.name) secrets.add(f.secretRef.name);
    }
  }
  return { configMaps, secrets };
}

export function resolveEnv(container: V1Container, sources: EnvSources): EnvResult {
  const env: Record<string, string> = {};
  // 1: envFrom, in order; explicit env entries below override it.
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref?.name) continue;
    const isSecret = from.secretRef !== undefined;
    const data = isSecret ? secretData(sources.secrets.get(ref.name)) : sources.configMaps.get(ref.name)?.data;
    const present = isSecret ? sources.secrets.get(ref.name) : sources.configMaps.get(ref.name);
    if (!present) {
      if (ref.optional) continue;
      return { ok: false, message: `${isSecret ? 'secret' : 'configmap'} "${ref.name}" not found` };
    }
    for (const [key, value] of Object.entries(data ?? {})) env[`${from.prefix ?? ''}${key}`] = value;
  }
  // 2: env entries, each may refer to the ones before it with $(NAME).
  for (const e of container.env ?? []) {
    if (e.valueFrom === undefined) {
      env[e.name] = expandReferences(e.value ?? '', env);
      continue;
    }
    const value = valueFrom(e.name, e.valueFrom, container, sources);
    if (typeof value === 'object') return value;
    if (value !== undefined) env[e.name] = value;
  }
  return { ok: true, env };
}

/** Kubernetes' $(VAR) expansion: known names are replaced, `$$` escapes, unknown stay as written. */
export function expandReferences(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (found, name: string | undefined) => {
    if (found === '$$') return '$';
    return name !== undefined && Object.hasOwn(env, name) ? (env[name] ?? '') : found;
  });
}

type EnvVarSource = NonNullable<NonNullable<V1Container['env']>[number]['valueFrom']>;

function valueFrom(
  name: string,
  from: EnvVarSource,
  container: V1Container,
  sources: EnvSources,
): string | undefined | { ok: false; message: string } {
  if (from.fieldRef) {
    const value = fieldValue(from.fieldRef.fieldPath, sources);
    return value ?? { ok: false, message: `env ${name}: unsupported fieldRef "${from.fieldRef.fieldPath}"` };
  }
  if (from.configMapKeyRef) {
    const ref = from.configMapKeyRef;
    const cm = sources.configMaps.get(ref.name ?? '');
    const value = cm?.data?.[ref.key];
    if (value !== undefined) return value;
    if (ref.optional) return undefined;
    return {
      ok: false,
      message: cm
        ? `couldn't find key ${ref.key} in ConfigMap ${sources.pod.metadata?.namespace}/${ref.name}`
        : `configmap "${ref.name}" not found`,
    };
  }
  if (from.secretKeyRef) {
    const ref = from.secretKeyRef;
    const secret = sources.secrets.get(ref.name ?? '');
    const value = secretData(secret)[ref.key];
    if (value !== undefined) return value;
    if (ref.optional) return undefined;
    return {
      ok: false,
      message: secret
        ? `couldn't find key ${ref.key} in Secret ${sources.pod.metadata?.namespace}/${ref.name}`
        : `secret "${ref.name}" not found`,
    };
  }
  if (from.resourceFieldRef) return resourceValue(from.resourceFieldRef.resource, container);
  return { ok: false, message: `env ${name}: unsupported valueFrom` };
}

export function fieldValue(fieldPath: string, sources: EnvSources): string | undefined {
  const { pod } = sources;
  const labelOrAnnotation = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (labelOrAnnotation) {
    const map = labelOrAnnotation[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations;
    return map?.[labelOrAnnotation[2] ?? ''] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata?.name ?? '';
    case 'metadata.namespace':
      return pod.metadata?.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata?.uid ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.podIP':
    case 'status.podIPs':
      return sources.podIP;
    case 'status.hostIP':
    case 'status.hostIPs':
      return sources.hostIP;
    default:
      return undefined;
  }
}

function resourceValue(resource: string, container: V1Container): string {
  const [kind, name] = resource.split('.') as [string, string];
  const quantity = (kind === 'limits' ? container.resources?.limits : container.resources?.requests)?.[name];
  return quantity ?? (name === 'cpu' ? '2' : '0');
}

/** Secret data decoded from base64 (stringData is folded into data by the API server). */
function secretData(secret: V1Secret | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret?.data ?? {}))
    out[key] = Buffer.from(value, 'base64').toString('utf8');
  return out;
}
