// Growing the data volumes when spec.storage.size grows (pure; children.ts applies it). A
// StatefulSet's claim templates are immutable, so the way users do it by hand: each existing
// claim's request is raised (the StorageClass's expansion does the rest), and the StatefulSet is
// deleted with propagationPolicy Orphan, leaving its pods running, and recreated with the new
// template on a later pass; it adopts the pods, whose template is unchanged, so none restarts.
import { compareQuantities } from './quantity.ts';

export interface ClaimSize {
  readonly name: string;
  /** spec.resources.requests.storage */
  readonly requested?: string;
  /** status.capacity.storage: what the volume has now. */
  readonly capacity?: string;
}

export interface VolumeInput {
  /** spec.storage.size */
  readonly size: string;
  /** The request of the existing StatefulSet's claim template; undefined when there is no StatefulSet. */
  readonly templateSize?: string;
  /** The existing StatefulSet is being deleted (a replacement under way). */
  readonly statefulSetDeleting: boolean;
  readonly claims: readonly ClaimSize[];
}

/**
 * - `apply`: apply the StatefulSet as usual (an existing one keeps its claim templates);
 * - `replace`: its claim template is smaller than the spec: delete it, orphaning the pods;
 * - `wait`: it is being deleted: apply nothing until it is gone, then `apply` creates it.
 */
export type StatefulSetAction = 'apply' | 'replace' | 'wait';

export interface VolumePlan {
  /** Claims whose request is below spec.storage.size: raise it. */
  readonly expand: readonly string[];
  readonly statefulSet: StatefulSetAction;
  /** For people while some volume is still smaller than the spec, e.g. "resizing volumes to 2Gi: 4/6 done". */
  readonly resizing?: string;
}

const below = (value: string | undefined, size: string) => (compareQuantities(value, size) ?? 0) < 0;

export function planVolumes(input: VolumeInput): VolumePlan {
  const { size, claims } = input;
  const expand = claims.filter((c) => below(c.requested, size)).map((c) => c.name);
  const statefulSet: StatefulSetAction = input.statefulSetDeleting
    ? 'wait'
    : input.templateSize !== undefined && below(input.templateSize, size)
      ? 'replace'
      : 'apply';
  // A claim without a capacity yet is still being provisioned (at the template's size).
  const small = claims.filter((c) => c.capacity !== undefined && below(c.capacity, size)).length;
  const resizing =
    small > 0 || statefulSet !== 'apply'
      ? `resizing volumes to ${size}: ${claims.length - small}/${claims.length} done${statefulSet === 'apply' ? '' : ', replacing the StatefulSet'}`
      : undefined;
  return { expand, statefulSet, ...(resizing ? { resizing } : {}) };
}
