// The engine's input from what Kubernetes shows: every pod with an address, where it runs, and
// whether it is being removed (ordinals beyond the spec's node count are drained, then go).
import type { DefaultedSpec } from '../api/defaults.ts';
import type { DesiredCluster, PodPlacement } from '../cluster/desired.ts';
import { CLIENT_PORT } from '../resources/names.ts';
import { podCount } from '../resources/statefulset.ts';
import type { ObservedPod } from './observed.ts';

export function toDesiredCluster(spec: DefaultedSpec, pods: readonly ObservedPod[]): DesiredCluster {
  const wanted = podCount(spec);
  const placements: PodPlacement[] = pods
    .filter((p) => p.ip && p.nodeName && !p.terminating && p.phase === 'Running')
    .map((p) => ({
      name: p.name,
      address: { ip: p.ip as string, port: CLIENT_PORT },
      nodeName: p.nodeName as string,
      ...(p.zone ? { zone: p.zone } : {}),
      ...(p.ordinal >= wanted ? { removing: true } : {}),
    }));
  return { masters: spec.masters, replicasPerMaster: spec.replicasPerMaster, pods: placements };
}
