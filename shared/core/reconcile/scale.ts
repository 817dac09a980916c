// How many pods the StatefulSet keeps. Scale-out: the spec's count at once. Scale-in: the
// nodes beyond the spec stay until the engine has drained and forgotten every one of them
// (`removable`), then the StatefulSet shrinks and its controller deletes them and their PVCs.
// A leaving pod that does not run (unschedulable, crashed) holds nothing the engine could
// drain: once the cluster has converged without it, it goes too, so scale-in never sticks.
import type { DefaultedSpec } from '../api/defaults.ts';
import type { Observed } from './observed.ts';
import { podCount } from '../resources/statefulset.ts';

export function statefulSetReplicas(
  spec: DefaultedSpec,
  observed: Observed,
  removable: readonly string[] | undefined,
  converged = false,
): number {
  const wanted = podCount(spec);
  const current = observed.children.statefulSet?.spec?.replicas ?? 0;
  if (current <= wanted) return wanted;
  const leaving = observed.pods.filter((p) => p.ordinal >= wanted);
  const gone = (p: Observed['pods'][number]) => converged && (!p.ip || p.phase !== 'Running' || p.terminating);
  if (removable && leaving.every((p) => removable.includes(p.name) || gone(p))) return wanted;
  return current;
}
