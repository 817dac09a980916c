// API clients of the local kubelet and the few helpers its parts share: strategic-merge
// patches, 404/409 recognition, informers that restart themselves after errors.
import {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  ListWatch,
  PatchStrategy,
  StorageV1Api,
  Watch,
  setHeaderOptions,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { Logger } from '../../../shared/io/log.ts';

export interface KubeClients {
  readonly kc: KubeConfig;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  readonly storage: StorageV1Api;
}

export function kubeClients(kubeconfigPath: string): KubeClients {
  const kc = new KubeConfig();
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

export function statusCode(err: unknown): number | undefined {
  const e = err as { code?: unknown; statusCode?: unknown };
  return typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
}

export const isNotFound = (err: unknown) => statusCode(err) === 404;
export const isConflict = (err: unknown) => statusCode(err) === 409;

/** A short description of an API error, without request bodies (they may carry secrets). */
export function describe(err: unknown): string {
  const code = statusCode(err);
  const body = (err as { body?: unknown })?.body;
  const message =
    typeof body === 'string'
      ? (JSON.parse(body) as { message?: string }).message
      : (body as { message?: string } | undefined)?.message;
  return code !== undefined
    ? `HTTP ${code}${message ? `: ${message}` : ''}`
    : err instanceof Error
      ? err.message
      : String(err);
}

export interface Informed<T extends KubernetesObject> {
  list(): readonly T[];
  get(name: string, namespace?: string): T | undefined;
  stop(): Promise<void>;
}

/**
 * List+watch of `path` (410 Gone relists inside ListWatch); after any other error or an API
 * restart it starts again after a second, until stopped.
 */
export function inform<T extends KubernetesObject>(
  clients: KubeClients,
  log: Logger,
  path: string,
  list: () => Promise<KubernetesListObject<T>>,
  onChange: (kind: 'add' | 'update' | 'delete', obj: T) => void,
  fieldSelector?: string,
): Informed<T> & { started: Promise<void> } {
  const informer = new ListWatch<T>(path, new Watch(clients.kc), list, false, undefined, fieldSelector);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  informer.on('add', (o) => onChange('add', o));
  informer.on('update', (o) => onChange('update', o));
  informer.on('delete', (o) => onChange('delete', o));
  informer.on('error', (err) => {
    if (stopped) return;
    log.warn({ path, err: describe(err) }, 'watch failed; restarting');
    timer = setTimeout(() => {
      if (!stopped) informer.start().catch(() => undefined);
    }, 1000);
  });
  return {
    started: informer.start(),
    list: () => informer.list(),
    get: (name, namespace) => informer.get(name, namespace),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await informer.stop();
    },
  };
}
