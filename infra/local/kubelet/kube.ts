// API clients of the local kubelet and the few helpers its parts share: strategic-merge
// patches, and informers over the shared list-watch loop (404/409 recognition is shared too).
import {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  StorageV1Api,
  Watch,
  setHeaderOptions,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { startListWatch } from '../../../shared/io/kube/list-watch.ts';
import { withKeepAlive } from '../../../shared/io/kube/keep-alive.ts';
import { watchClient } from '../../../shared/io/kube/watch-client.ts';
import type { Logger } from '../../../shared/io/log.ts';

export interface KubeClients {
  readonly kc: KubeConfig;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  readonly storage: StorageV1Api;
}

export function kubeClients(kubeconfigPath: string): KubeClients {
  // A kubelet per node, each syncing its pods' status: one connection pool, not a TLS handshake a request.
  const kc = withKeepAlive(new KubeConfig());
  kc.loadFromFile(kubeconfigPath);
  return {
    kc,
    core: kc.makeApiClient(CoreV1Api),
    coordination: kc.makeApiClient(CoordinationV1Api),
    storage: kc.makeApiClient(StorageV1Api),
  };
}

export const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export { isConflict, isNotFound, describeApiError as describe } from '../../../shared/io/kube/errors.ts';

export interface Informed<T extends KubernetesObject> {
  list(): readonly T[];
  get(name: string, namespace?: string): T | undefined;
  stop(): Promise<void>;
}

/**
 * List+watch of `path` through the one list-watch loop (shared/io/kube/list-watch.ts: it lists
 * again after 410 Gone, and backs off after any other error), until stopped. `started`
 * resolves once the first list is in.
 */
export function inform<T extends KubernetesObject>(
  clients: KubeClients,
  log: Logger,
  path: string,
  list: () => Promise<KubernetesListObject<T>>,
  onChange: (kind: 'add' | 'update' | 'delete', obj: T) => void,
  fieldSelector?: string,
): Informed<T> & { started: Promise<void> } {
  let listed: () => void = () => {};
  const started = new Promise<void>((resolve) => (listed = resolve));
  const client = watchClient(
    new Watch(clients.kc),
    async () => {
      const result = await list();
      listed();
      return result;
    },
    { path, ...(fieldSelector ? { fieldSelector } : {}), timeoutSeconds: 300 + Math.floor(Math.random() * 300) },
  );
  const loop = startListWatch({
    client,
    onChange: (o, verb) => onChange(verb, o as T),
    backoff: { baseMs: 200, maxMs: 5_000, jitter: 0.2 },
    log: log.child({ path }),
  });
  return {
    started,
    list: () => loop.list() as T[],
    get: (name, namespace) => loop.get(`${namespace ?? ''}/${name}`) as T | undefined,
    stop: () => loop.stop(),
  };
}
