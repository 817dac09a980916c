// Metadata every child carries: labels that select it, an owner reference to the cluster, and
// a hash of its desired content, so an unchanged child is never written again.
import { createHash } from 'node:crypto';
import {
  API_VERSION_V1BETA1,
  KIND,
  LABEL_COMPONENT,
  LABEL_INSTANCE,
  LABEL_NAME,
  NAME_VALUE,
  ownedLabels,
} from '../api/group.ts';

export { ownedLabels } from '../api/group.ts';

export const ANNOTATION_HASH = 'cache.redis.io/desired-hash';
/** On a data PVC: the Redis node id its nodes.conf holds, so a pod that is away is not forgotten. */
export const ANNOTATION_NODE_ID = 'cache.redis.io/node-id';
/** On the pod template: hash of what needs a restart to take effect (image, restart-only config). */
export const ANNOTATION_RESTART_HASH = 'cache.redis.io/restart-hash';

export interface OwnerCluster {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid: string };
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
  blockOwnerDeletion: boolean;
}

/**
 * The StatefulSet's spec.selector, which is immutable: kept as the first clusters got it. It is
 * too wide to select with elsewhere (see ownedLabels): Services and the PDB use ownedLabels.
 */
export function selectorLabels(cluster: string): Record<string, string> {
  return { [LABEL_NAME]: NAME_VALUE, [LABEL_INSTANCE]: cluster };
}

export function childLabels(cluster: string, component: string): Record<string, string> {
  return { ...ownedLabels(cluster), [LABEL_COMPONENT]: component };
}

export function ownerReference(owner: OwnerCluster): OwnerReference {
  return {
    apiVersion: API_VERSION_V1BETA1,
    kind: KIND,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A stable hash of JSON data: keys sorted, so the same content always hashes the same. */
export function hashOf(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex').slice(0, 16);
}

export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
