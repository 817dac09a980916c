// Watching one resource for the event source: the list-watch loop over the real API server.
// List items come without apiVersion/kind; the events need them, so they are set here.
import { KubernetesObjectApi, Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { BackoffPolicy } from '../../shared/core/queue/backoff.ts';
import type { Logger } from '../../shared/io/log.ts';
import { startListWatch, type OnChange } from './list-watch.ts';
import { watchClient } from './watch-client.ts';
import type { WatchedResource } from './watched.ts';

export type { OnChange } from './list-watch.ts';

export function watchResource(
  kc: KubeConfig,
  resource: WatchedResource,
  onChange: OnChange,
  backoff: BackoffPolicy,
  log: Logger,
): { stop(): Promise<void> } {
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
  const client = watchClient(new Watch(kc), list, {
    path: resource.path,
    labelSelector: resource.labelSelector,
    timeoutSeconds,
  });
  const typed = (o: KubernetesObject) => ({ ...o, apiVersion: resource.apiVersion, kind: resource.kind });
  return startListWatch({
    client,
    onChange: (o, verb) => onChange(typed(o), verb),
    backoff,
    log: log.child({ kind: resource.kind }),
  });
}
