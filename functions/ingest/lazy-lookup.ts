// The Kubernetes client is the heaviest library ingest could load (about half a second of a
// cold start on two cores), and only reference-mode events, label-mapped children and token
// reviews need it. So ingest starts without it and loads it on first use: a scaled-from-zero
// ingest starts listening without waiting for it.
import type { KubeConfig } from '@kubernetes/client-node';
import type { ReviewToken } from './sender-auth.ts';
import type { OwnerLookup } from './to-keys.ts';

/** load() once at a time; a failed load (a bad kubeconfig) is tried again next time, not cached. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

export function lazyOwnerLookup(load: () => Promise<OwnerLookup>): OwnerLookup {
  const lookup = once(load);
  return {
    readObject: async (ref) => (await lookup()).readObject(ref),
    existingClusters: async (namespace, names) => (await lookup()).existingClusters(namespace, names),
    clustersUsingSecret: async (namespace, secret) => (await lookup()).clustersUsingSecret(namespace, secret),
  };
}

/** The owner lookup and the token review on one KubeConfig, each loaded on first use. */
export function lazyKube(kubeconfig: string | undefined): { lookup: OwnerLookup; review: ReviewToken } {
  const kc = once<KubeConfig>(async () => (await import('../kube.ts')).loadKubeConfig(kubeconfig, 'knredis-ingest'));
  const review = once(async () => (await import('./token-review.ts')).kubeTokenReview(await kc()));
  return {
    lookup: lazyOwnerLookup(async () => (await import('../kube.ts')).kubeOwnerLookup(await kc())),
    review: async (token, audience) => (await review())(token, audience),
  };
}
