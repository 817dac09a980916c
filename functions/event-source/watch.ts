// List + watch of one resource with client-node's informer: it lists first (so everything
// that exists is emitted as `add`), re-lists on 410 Gone, and reports errors; on an error
// (API server restarted, watch broken) it is started again after a backoff.
import { KubernetesObjectApi, makeInformer, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { backoffDelay, type BackoffPolicy } from '../../shared/core/queue/backoff.ts';
import type { Verb } from '../../shared/core/apiserver-events.ts';
import type { Logger } from '../../shared/io/log.ts';
import type { WatchedResource } from './watched.ts';

export type OnChange = (object: KubernetesObject, verb: Verb) => void;

export function watchResource(kc: KubeConfig, resource: WatchedResource, onChange: OnChange, backoff: BackoffPolicy, log: Logger): { stop(): Promise<void> } {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const namespace = /\/namespaces\/([^/]+)\//.exec(resource.path)?.[1];
  const list = () => objects.list(resource.apiVersion, resource.kind, namespace, undefined, undefined, undefined, undefined, resource.labelSelector);
  const informer = makeInformer(kc, resource.path, list, resource.labelSelector);
  // List items come without apiVersion/kind; events need them.
  const typed = (o: KubernetesObject) => ({ ...o, apiVersion: resource.apiVersion, kind: resource.kind });
  informer.on('add', (o) => onChange(typed(o), 'add'));
  informer.on('update', (o) => onChange(typed(o), 'update'));
  informer.on('delete', (o) => onChange(typed(o), 'delete'));
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  informer.on('connect', () => { failures = 0; });
  informer.on('error', (error: unknown) => {
    if (stopped) return;
    failures++;
    const delay = backoffDelay(failures, backoff, Math.random);
    log.warn({ kind: resource.kind, err: error, retryInMs: delay }, 'watch failed; starting it again');
    timer = setTimeout(() => { if (!stopped) void informer.start().catch(() => {}); }, delay);
  });
  void informer.start().catch(() => {});
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await informer.stop();
    },
  };
}
