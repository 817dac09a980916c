// The Kubernetes side of a pass as data (the Redis side's steps are ../cluster/steps.ts): what
// plan-kube.ts decides and functions/reconcile/apply-kube.ts carries out, in order.
export type KubeStep =
  /** Server-side apply of the children whose desired hash differs, first the generated auth
   * Secret when there is none; `replicas` is the StatefulSet's (scale-in keeps leaving pods). */
  | { readonly kind: 'applyChildren'; readonly replicas: number }
  /** A Warning Event about something a person must fix. */
  | { readonly kind: 'warn'; readonly reason: string; readonly message: string }
  /** Records on a pod's data claim the Redis node id its nodes.conf holds. */
  | { readonly kind: 'annotateClaim'; readonly claim: string; readonly nodeId: string }
  /** Scale-in done: the StatefulSet lets the drained pods go (its controller deletes them). */
  | { readonly kind: 'shrinkStatefulSet'; readonly replicas: number; readonly removed: number }
  /** spec.externalAccess: the nodes' Services no node announces any more (external-access.ts). */
  | { readonly kind: 'deleteExternalServices'; readonly services: readonly string[] }
  /** A pod stuck on a lost node, deleted with grace 0 once Redis holds its node failed. */
  | { readonly kind: 'forceDeletePod'; readonly pod: string };
