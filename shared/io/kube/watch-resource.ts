// Watching one resource over the real API server: the list-watch loop with its store. List
// items come without apiVersion/kind; consumers need them, so they are set here. `transform`
// trims what is kept (an informer's TransformFunc: less memory per object).
import { KubernetesObjectApi, Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { BackoffPolicy } from '../../core/queue/backoff.ts';
import type { Logger } from '../log.ts';
import { startListWatch, type ListWatch, type OnChange } from './list-watch.ts';
import { watchClient } from './watch-client.ts';

export type { ListWatch, OnChange } from './list-watch.ts';

export interface WatchedResource {
  readonly apiVersion: string;
  readonly kind: string;
  /** Path of the collection, e.g. /api/v1/pods (all namespaces) or /api/v1/namespaces/ns/pods. */
  readonly path: string;
  readonly labelSelector?: string;
}

export function watchResource(
  kc: KubeConfig,
  resource: WatchedResource,
  onChange: OnChange,
  backoff: BackoffPolicy,
  log: Logger,
  transform: (o: KubernetesObject) => KubernetesObject = (o) => o,
): ListWatch {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const namespace = /\/namespaces\/([^/]+)\//.exec(resource.path)?.[1];
  const list = () =>
    objects.list(
      resource.apiVersion,
      resource.kind,
      namespace,
      undefined,
      undefined,
      undefined,
      undefined,
      resource.labelSelector,
    );
  // Like client-go: each watch asks the server to end it after 5 to 10 minutes.
  const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
  const typed = (o: KubernetesObject) => transform({ ...o, apiVersion: resource.apiVersion, kind: resource.kind });
  const client = watchClient(
    new Watch(kc),
    async () => {
      const result = await list();
      return { ...result, items: result.items.map(typed) };
    },
    {
      path: resource.path,
      ...(resource.labelSelector ? { labelSelector: resource.labelSelector } : {}),
      timeoutSeconds,
    },
  );
  return startListWatch({
    client: {
      list: client.list,
      watch: (v, onEvent, signal) => client.watch(v, (e) => onEvent({ ...e, object: typed(e.object) }), signal),
    },
    onChange,
    backoff,
    log: log.child({ kind: resource.kind }),
  });
}
