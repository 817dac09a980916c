// Every Kubernetes API call knredis makes, by the identity that makes it, written down next to
// the code that makes it. The RBAC manifests (ServiceAccounts, ClusterRoles, bindings) are
// rendered from this list (infra/rbac/render.ts) into infra/rbac/rbac.yaml (both runtimes),
// infra/kubernetes/rbac.yaml and infra/knative/rbac.yaml; test/integration/infra/rbac.test.ts
// asks the real API server's authorizer that each identity may do exactly this and no more.
// When code starts a new call, add it here and run `npx tsx infra/rbac/generate.ts`.
import { BACKUP_PLURAL, GROUP, PLURAL } from '../../shared/core/api/group.ts';
import { CHILD_KINDS } from '../../shared/core/resources/owned-kinds.ts';

export const NAMESPACE = 'knredis-system';

export type RbacVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

export interface Permission {
  /** API group; '' is the core group. */
  readonly group: string;
  /** Plural resource, with '/subresource' when it is one. */
  readonly resource: string;
  readonly verbs: readonly RbacVerb[];
  /** The code that needs it. */
  readonly usedBy: string;
}

export type Runtime = 'kubernetes' | 'knative';

/** Resources that belong to no namespace: a namespaced install still needs a ClusterRole for them. */
export const CLUSTER_SCOPED: ReadonlySet<string> = new Set(['nodes', 'storageclasses']);

export interface Identity {
  /** Name of the ServiceAccount, the ClusterRole and the ClusterRoleBinding. */
  readonly name: string;
  readonly description: string;
  /** Only in this runtime's manifests (infra/<runtime>/rbac.yaml); both when absent. */
  readonly runtime?: Runtime;
  readonly permissions: readonly Permission[];
}

// Server-side apply of an object that does not exist yet creates it: the API server checks
// `create` as well as `patch` then (the children are all applied that way).
const applied = ['get', 'create', 'patch'] as const;
const kube = 'shared/io/kube/kube-client.ts';
const cache = 'shared/io/kube/child-cache.ts';

/** Each child kind knredis owns (shared/core/resources/owned-kinds.ts) with these verbs. */
const onChildren = (verbs: readonly RbacVerb[], usedBy: string): Permission[] =>
  CHILD_KINDS.map(({ group, plural }) => ({ group, resource: plural, verbs, usedBy }));

export const identities: readonly Identity[] = [
  {
    name: 'knredis-reconcile',
    description: 'the reconcile worker (functions/reconcile) and its periodic resync',
    permissions: [
      {
        group: GROUP,
        resource: PLURAL,
        verbs: ['get', 'list', 'patch'],
        usedBy: `reconcile.ts getCluster; functions/kube.ts kubeListClusterKeys (resync); ${kube} setFinalizers (merge patch)`,
      },
      {
        group: GROUP,
        resource: `${PLURAL}/status`,
        verbs: ['update'],
        usedBy: `${kube} replaceStatus (PUT of the status subresource)`,
      },
      // Owner references with blockOwnerDeletion need it where OwnerReferencesPermissionEnforcement is on.
      {
        group: GROUP,
        resource: `${PLURAL}/finalizers`,
        verbs: ['update'],
        usedBy: 'children.ts (ownerReferences with blockOwnerDeletion)',
      },
      {
        group: GROUP,
        resource: BACKUP_PLURAL,
        verbs: ['get', 'list', 'create', 'delete'],
        usedBy:
          "functions/reconcile/backup-pass.ts list (the cluster's backup in progress); restore-pass.ts get (the backup restored); schedule-step.ts create (a scheduled backup), delete (retention)",
      },
      {
        group: GROUP,
        resource: `${BACKUP_PLURAL}/status`,
        verbs: ['update'],
        usedBy:
          'functions/reconcile/backup-pass.ts through shared/io/kube/backup-client.ts replaceStatus (progress and result)',
      },
      {
        group: 'apps',
        resource: 'statefulsets',
        verbs: [...applied, 'list', 'watch'],
        usedBy: `observe.ts read (${cache} list + watch); finalize.ts read (claim templates); children.ts apply`,
      },
      {
        group: '',
        resource: 'services',
        verbs: [...applied, 'list', 'watch', 'delete'],
        usedBy: `observe.ts read (headless and client Service; ${cache} list + watch; list of the external access Services without it); children.ts apply; apply-kube.ts delete (external access Services no node announces)`,
      },
      {
        group: '',
        resource: 'configmaps',
        verbs: [...applied, 'list', 'watch'],
        usedBy: `observe.ts read (${cache} list + watch); children.ts apply (redis.conf)`,
      },
      {
        group: '',
        resource: 'secrets',
        verbs: [...applied, 'list'],
        usedBy:
          "observe.ts list (the cluster's labelled Secrets) and read (auth password); children.ts apply (generated, active and monitoring Secrets)",
      },
      {
        group: 'policy',
        resource: 'poddisruptionbudgets',
        verbs: [...applied, 'list', 'watch', 'delete'],
        usedBy: `observe.ts read (${cache} list + watch); children.ts apply, delete when disabled`,
      },
      {
        group: 'networking.k8s.io',
        resource: 'networkpolicies',
        verbs: [...applied, 'list', 'watch', 'delete'],
        usedBy: `observe.ts read (${cache} list + watch); children.ts apply, delete when disabled`,
      },
      {
        group: '',
        resource: 'pods',
        verbs: ['list', 'watch', 'delete'],
        usedBy: `observe.ts listPods (${cache} list + watch); reconcile.ts restartPod (rolling update), force-delete on a lost node`,
      },
      {
        group: '',
        resource: 'persistentvolumeclaims',
        verbs: ['list', 'watch', 'patch', 'delete'],
        usedBy: `observe.ts listClaims (${cache} list + watch); reconcile.ts annotate (node id); finalize.ts delete (reclaim: Delete)`,
      },
      {
        group: '',
        resource: 'nodes',
        verbs: ['list', 'watch'],
        usedBy: `observe.ts listNodes without the cache; ${cache} list + watch (zones, lost nodes, node addresses for external access)`,
      },
      {
        group: '',
        resource: 'events',
        verbs: ['get', 'create', 'patch'],
        usedBy: `events.ts through ${kube} event (create, or get + patch the count)`,
      },
    ],
  },
  {
    name: 'knredis-ingest',
    description:
      'the CloudEvents sink (functions/ingest): owner lookup of reference-mode events, token reviews of senders',
    permissions: [
      {
        group: GROUP,
        resource: PLURAL,
        verbs: ['get', 'list'],
        usedBy: 'functions/kube.ts existingClusters, clustersUsingSecret',
      },
      {
        group: GROUP,
        resource: BACKUP_PLURAL,
        verbs: ['get'],
        usedBy: "functions/kube.ts readObject (a backup's spec.clusterName)",
      },
      ...onChildren(['get'], 'functions/kube.ts readObject (functions/ingest/to-keys.ts childKinds)'),
      {
        group: 'authentication.k8s.io',
        resource: 'tokenreviews',
        verbs: ['create'],
        usedBy: "functions/ingest/token-review.ts (the senders' ServiceAccount tokens)",
      },
    ],
  },
  {
    name: 'knredis-event-source',
    description: 'the built-in event source (functions/event-source), clusters without Knative',
    runtime: 'kubernetes',
    permissions: [
      { group: GROUP, resource: PLURAL, verbs: ['list', 'watch'], usedBy: 'functions/event-source/watched.ts' },
      { group: GROUP, resource: BACKUP_PLURAL, verbs: ['list', 'watch'], usedBy: 'functions/event-source/watched.ts' },
      {
        group: '',
        resource: 'secrets',
        verbs: ['list', 'watch'],
        usedBy: 'functions/event-source/watched.ts (sent as references, never their data)',
      },
      ...onChildren(['list', 'watch'], 'functions/event-source/watched.ts (labelled children)'),
    ],
  },
  {
    name: 'knredis-webhooks',
    description: 'the admission and conversion webhooks (functions/webhooks): the RedisCluster behind a scale review',
    permissions: [
      {
        group: GROUP,
        resource: PLURAL,
        verbs: ['get'],
        usedBy: 'functions/kube.ts kubeClusterReader (a /scale review is checked as the edit it amounts to)',
      },
      {
        group: 'storage.k8s.io',
        resource: 'storageclasses',
        verbs: ['get', 'list'],
        usedBy: 'functions/webhooks/storage-class.ts (growing spec.storage.size needs a class that allows expansion)',
      },
    ],
  },
  {
    // Knative's ApiServerSource runs its adapter as this ServiceAccount (infra/knative/apiserversource.yaml).
    // Secrets are watched by a second source in Reference mode: their data never travels.
    name: 'knredis-apiserversource',
    description: "Knative's ApiServerSource adapter: get/list/watch of what it watches",
    runtime: 'knative',
    permissions: [
      { group: GROUP, resource: PLURAL, verbs: ['get', 'list', 'watch'], usedBy: 'infra/knative/apiserversource.yaml' },
      {
        group: GROUP,
        resource: BACKUP_PLURAL,
        verbs: ['get', 'list', 'watch'],
        usedBy: 'infra/knative/apiserversource.yaml',
      },
      {
        group: '',
        resource: 'secrets',
        verbs: ['get', 'list', 'watch'],
        usedBy: 'infra/knative/apiserversource.yaml (knredis-secrets, Reference mode)',
      },
      ...onChildren(['get', 'list', 'watch'], 'infra/knative/apiserversource.yaml (labelled children)'),
    ],
  },
];

/** Functions that make no Kubernetes API call: a ServiceAccount without a token. */
export const tokenless: readonly { name: string; description: string }[] = [
  { name: 'knredis-dashboard', description: 'bull-board and queue metrics (Redis only)' },
];

export function serviceAccountUser(name: string, namespace = NAMESPACE): string {
  return `system:serviceaccount:${namespace}:${name}`;
}
