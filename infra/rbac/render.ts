// Renders the RBAC objects from infra/rbac/permissions.ts: per identity a ServiceAccount, a
// ClusterRole holding exactly its permissions (verbs grouped by API group) and the binding.
// ClusterRoles, because every function works across namespaces (WATCH_NAMESPACE unset); the
// namespaced install (infra/overlays/namespaced) gets Roles in the one watched namespace
// instead, and ClusterRoles only for what belongs to no namespace (nodes, storage classes).
import { stringify } from 'yaml';
import {
  CLUSTER_SCOPED,
  identities,
  NAMESPACE,
  tokenless,
  type Identity,
  type Permission,
  type Runtime,
} from './permissions.ts';

type Obj = Record<string, unknown>;

const labels = { 'app.kubernetes.io/name': 'knredis', 'app.kubernetes.io/part-of': 'knredis' };

function serviceAccount(name: string, description: string, automount: boolean, namespace = NAMESPACE): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace, labels, annotations: { 'kubernetes.io/description': description } },
    ...(automount ? {} : { automountServiceAccountToken: false }),
  };
}

/** One rule per (group, verb set): resources that share both are listed together. */
export function rulesOf(identity: Identity, permissions: readonly Permission[] = identity.permissions): Obj[] {
  const rules = new Map<string, { apiGroups: string[]; resources: string[]; verbs: string[] }>();
  for (const p of permissions) {
    const verbs = [...p.verbs].sort();
    const key = `${p.group}|${verbs.join(',')}`;
    const rule = rules.get(key) ?? { apiGroups: [p.group], resources: [], verbs };
    rule.resources.push(p.resource);
    rules.set(key, rule);
  }
  return [...rules.values()];
}

function identityObjects(identity: Identity): Obj[] {
  return [
    serviceAccount(identity.name, identity.description, true),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: identity.name, labels },
      rules: rulesOf(identity),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: identity.name, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: identity.name },
      subjects: [{ kind: 'ServiceAccount', name: identity.name, namespace: NAMESPACE }],
    },
  ];
}

export interface NamespacedInstall {
  /** The one namespace whose RedisClusters the operator manages (WATCH_NAMESPACE). */
  readonly watchNamespace: string;
  /** Where the operator's ServiceAccounts are; knredis-system by default. */
  readonly operatorNamespace?: string;
}

/**
 * RBAC of a namespaced install, plain-Kubernetes runtime: per identity a Role in the watched
 * namespace and its RoleBinding, and a ClusterRole only for the cluster-scoped resources it
 * reads. The ServiceAccounts of the shared identities come with it (the overlay leaves
 * ../../rbac out); the event source's comes from ../../kubernetes.
 */
export function namespacedRbacObjects(install: NamespacedInstall): Obj[] {
  const operatorNamespace = install.operatorNamespace ?? NAMESPACE;
  const rbac = 'rbac.authorization.k8s.io';
  const subjects = (name: string) => [{ kind: 'ServiceAccount', name, namespace: operatorNamespace }];
  const roleObjects = (identity: Identity): Obj[] => {
    const namespaced = identity.permissions.filter((p) => !CLUSTER_SCOPED.has(p.resource));
    const clusterScoped = identity.permissions.filter((p) => CLUSTER_SCOPED.has(p.resource));
    const meta = { name: identity.name, namespace: install.watchNamespace, labels };
    const clusterName = `${identity.name}-cluster-scoped`;
    return [
      ...(identity.runtime ? [] : [serviceAccount(identity.name, identity.description, true, operatorNamespace)]),
      { apiVersion: `${rbac}/v1`, kind: 'Role', metadata: meta, rules: rulesOf(identity, namespaced) },
      {
        apiVersion: `${rbac}/v1`,
        kind: 'RoleBinding',
        metadata: meta,
        roleRef: { apiGroup: rbac, kind: 'Role', name: identity.name },
        subjects: subjects(identity.name),
      },
      ...(clusterScoped.length === 0
        ? []
        : [
            {
              apiVersion: `${rbac}/v1`,
              kind: 'ClusterRole',
              metadata: { name: clusterName, labels },
              rules: rulesOf(identity, clusterScoped),
            },
            {
              apiVersion: `${rbac}/v1`,
              kind: 'ClusterRoleBinding',
              metadata: { name: clusterName, labels },
              roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: clusterName },
              subjects: subjects(identity.name),
            },
          ]),
    ];
  };
  return [
    ...identities.filter((i) => i.runtime !== 'knative').flatMap(roleObjects),
    ...tokenless.map((sa) => serviceAccount(sa.name, sa.description, false, operatorNamespace)),
  ];
}

/** The watched namespace of infra/overlays/namespaced (a kustomize replacement changes it). */
export const OVERLAY_WATCH_NAMESPACE = 'redis';

/** The objects of one runtime's file, or (no runtime) of those shared by both. */
export function rbacObjects(runtime?: Runtime): Obj[] {
  return [
    ...identities.filter((i) => i.runtime === runtime).flatMap(identityObjects),
    ...(runtime ? [] : tokenless.map((sa) => serviceAccount(sa.name, sa.description, false))),
  ];
}

function yamlOf(what: string, objects: Obj[]): string {
  return (
    `# ${what}\n` +
    '# Generated by infra/rbac/generate.ts from infra/rbac/permissions.ts: do not edit by hand.\n' +
    objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n')
  );
}

/** Repository path -> content of every generated RBAC file. */
export const rbacFiles: Record<string, () => string> = {
  'infra/rbac/rbac.yaml': () =>
    yamlOf('ServiceAccounts, ClusterRoles and bindings of the functions both runtimes run.', rbacObjects()),
  'infra/kubernetes/rbac.yaml': () =>
    yamlOf('RBAC of the built-in event source (plain-Kubernetes runtime).', rbacObjects('kubernetes')),
  'infra/overlays/namespaced/rbac.yaml': () =>
    yamlOf(
      `Roles in the watched namespace (${OVERLAY_WATCH_NAMESPACE}), ClusterRoles only for nodes and storage classes: the namespaced install.`,
      namespacedRbacObjects({ watchNamespace: OVERLAY_WATCH_NAMESPACE }),
    ),
  'infra/knative/rbac.yaml': () =>
    yamlOf("RBAC of Knative's ApiServerSource adapter (Knative runtime).", rbacObjects('knative')),
};
