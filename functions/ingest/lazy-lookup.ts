// The Kubernetes client is the heaviest library ingest could load (about half a second of a
// cold start on two cores), and only reference-mode events and label-mapped children need it.
// So ingest starts without it and loads it on the first lookup: a scaled-from-zero ingest
// answers its first resource-mode event without waiting for it.
import type { OwnerLookup } from './to-keys.ts';

export function lazyOwnerLookup(load: () => Promise<OwnerLookup>): OwnerLookup {
  let loading: Promise<OwnerLookup> | undefined;
  const lookup = () => {
    // a failed load (a bad kubeconfig) is tried again by the next event, not cached
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  return {
    readMeta: async (ref) => (await lookup()).readMeta(ref),
    existingClusters: async (namespace, names) => (await lookup()).existingClusters(namespace, names),
    clustersUsingSecret: async (namespace, secret) => (await lookup()).clustersUsingSecret(namespace, secret),
  };
}
