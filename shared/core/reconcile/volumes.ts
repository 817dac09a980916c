// The volume growth of this pass (../resources/volume-growth.ts) from what was observed: the
// children's apply carries it out, the planner reports it in status and looks again until
// every volume has the size of the spec (a resize ends with no event the operator watches).
import type { DefaultedSpec } from '../api/defaults.ts';
import { DATA_VOLUME } from '../resources/names.ts';
import { planVolumes, type VolumePlan } from '../resources/volume-growth.ts';
import type { Observed } from './observed.ts';

export function volumePlanOf(spec: DefaultedSpec, observed: Observed): VolumePlan {
  const statefulSet = observed.children.statefulSet;
  const template = statefulSet?.spec?.volumeClaimTemplates?.find((t) => t.metadata?.name === DATA_VOLUME);
  return planVolumes({
    size: spec.storage.size ?? '1Gi',
    ...(statefulSet ? { templateSize: template?.spec?.resources?.requests?.storage } : {}),
    statefulSetDeleting: !!statefulSet?.metadata?.deletionTimestamp,
    claims: observed.claims,
  });
}
