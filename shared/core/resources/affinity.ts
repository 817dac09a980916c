// The pods' affinity: the user's spec.affinity with the operator's spread merged in. The rule:
// nodeAffinity and podAffinity are the user's, as given; podAntiAffinity keeps the user's
// required and preferred terms and gains the operator's two preferred terms (spread the nodes of
// one cluster over Kubernetes nodes, then zones). They stay preferred, so a user's constraint can
// always win; the engine still pairs each replica away from its master whatever the scheduler did.
import type { Affinity, PodAffinityTerm } from '../api/k8s-types.ts';
import { selectorLabels } from './meta.ts';

export const HOSTNAME_KEY = 'kubernetes.io/hostname';
export const ZONE_KEY = 'topology.kubernetes.io/zone';

export function spreadTerms(cluster: string): { weight: number; podAffinityTerm: PodAffinityTerm }[] {
  const sameCluster = { labelSelector: { matchLabels: selectorLabels(cluster) } };
  return [
    { weight: 100, podAffinityTerm: { ...sameCluster, topologyKey: HOSTNAME_KEY } },
    { weight: 50, podAffinityTerm: { ...sameCluster, topologyKey: ZONE_KEY } },
  ];
}

export function podAffinityOf(cluster: string, user: Affinity | undefined): Affinity {
  const anti = user?.podAntiAffinity;
  return {
    ...user,
    podAntiAffinity: {
      ...anti,
      preferredDuringSchedulingIgnoredDuringExecution: [
        ...(anti?.preferredDuringSchedulingIgnoredDuringExecution ?? []),
        ...spreadTerms(cluster),
      ],
    },
  };
}
