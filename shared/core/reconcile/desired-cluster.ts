// The engine's input from what Kubernetes shows: every pod with an address, where it runs, and
// whether it is being removed (ordinals beyond the spec's node count are drained, then go), and
// with spec.externalAccess the address it announces.
import type { V1Service } from '@kubernetes/client-node';
import type { DefaultedSpec } from '../api/defaults.ts';
import type { DesiredCluster, PodPlacement } from '../cluster/desired.ts';
import { announcedAddressOf, externalServiceName } from '../resources/external-access.ts';
import { CLIENT_PORT } from '../resources/names.ts';
import { podCount } from '../resources/statefulset.ts';
import type { ObservedClaim, ObservedPod } from './observed.ts';

export function toDesiredCluster(
  spec: DefaultedSpec,
  pods: readonly ObservedPod[],
  claims: readonly ObservedClaim[] = [],
  externalServices: readonly V1Service[] = [],
): DesiredCluster {
  const wanted = podCount(spec);
  const access = spec.externalAccess;
  const serviceOf = new Map(externalServices.map((s) => [s.metadata?.name ?? '', s]));
  // With spec.externalAccess every node announces its Service's address (null: not known yet);
  // without it, none does (absent: the engine clears what a node still announces).
  const announced = (p: ObservedPod) =>
    access ? { announced: announcedAddressOf(access, serviceOf.get(externalServiceName(p.name)), p.nodeAddress) } : {};
  const placements: PodPlacement[] = pods
    .filter((p) => p.ip && p.nodeName && !p.terminating && p.phase === 'Running')
    .map((p) => ({
      name: p.name,
      address: { ip: p.ip as string, port: CLIENT_PORT },
      nodeName: p.nodeName as string,
      ...(p.zone ? { zone: p.zone } : {}),
      ...(p.ordinal >= wanted ? { removing: true } : {}),
      ...announced(p),
    }));
  // A node id lives on its volume: a pod that is away comes back with it.
  const keepIds = new Set(claims.filter((c) => c.nodeId && c.ordinal < wanted).map((c) => c.nodeId as string));
  return { masters: spec.masters, replicasPerMaster: spec.replicasPerMaster, pods: placements, keepIds };
}

/** Claims whose recorded node id differs from what the pod's Redis now says it is. */
export function claimsToRecord(
  claims: readonly ObservedClaim[],
  idOfPod: ReadonlyMap<string, string>,
): { claim: string; nodeId: string }[] {
  return claims.flatMap((c) => {
    const id = idOfPod.get(c.pod);
    return id && id !== c.nodeId ? [{ claim: c.name, nodeId: id }] : [];
  });
}
