// The API calls of the list-watch loop, over client-node's Watch (the code path its informer
// uses): one list, and one watch stream as a promise that resolves when the server ends the
// stream and rejects on failure. The API server reports an expired resourceVersion either as
// HTTP 410 or, from its watch cache, as an ERROR event with code 410 inside a 200 stream; both
// become a WatchError with code 410.
import type { KubernetesListObject, KubernetesObject, Watch } from '@kubernetes/client-node';

export { isConnectionError, isExpired } from './errors.ts';

export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  readonly object: KubernetesObject;
}

export interface ListWatchClient {
  list(): Promise<{ items: KubernetesObject[]; resourceVersion: string }>;
  /** Streams events after resourceVersion until the server ends the stream or signal aborts. */
  watch(resourceVersion: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<void>;
}

/** An error status from the API server, as an HTTP reply or an ERROR watch event. */
export class WatchError extends Error {
  override readonly name = 'WatchError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface WatchClientOptions {
  /** Collection path, e.g. /api/v1/namespaces/ns/pods. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Server-side end of each watch; the client gives up 30s after it (a frozen server). */
  readonly timeoutSeconds: number;
}

export function watchClient(
  watch: Pick<Watch, 'watch'>,
  list: () => Promise<KubernetesListObject<KubernetesObject>>,
  options: WatchClientOptions,
): ListWatchClient {
  return {
    async list() {
      const result = await list();
      return { items: result.items ?? [], resourceVersion: result.metadata?.resourceVersion ?? '' };
    },
    watch(resourceVersion, onEvent, signal) {
      return new Promise<void>((resolve, reject) => {
        let request: AbortController | undefined;
        let settled = false;
        const guard = setTimeout(
          () => finish(new Error(`watch of ${options.path} not ended by the server after ${options.timeoutSeconds}s`)),
          (options.timeoutSeconds + 30) * 1000,
        );
        const onAbort = () => finish();
        function finish(error?: unknown) {
          if (settled) return;
          settled = true;
          clearTimeout(guard);
          signal.removeEventListener('abort', onAbort);
          request?.abort();
          if (error) reject(error);
          else resolve();
        }
        if (signal.aborted) return finish();
        signal.addEventListener('abort', onAbort, { once: true });
        const params: Record<string, string | number | boolean> = {
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: options.timeoutSeconds,
        };
        if (options.labelSelector) params.labelSelector = options.labelSelector;
        if (options.fieldSelector) params.fieldSelector = options.fieldSelector;
        watch
          .watch(
            options.path,
            params,
            (type: string, object: KubernetesObject & { code?: number; message?: string }) => {
              if (settled) return;
              if (type === 'ERROR') return finish(new WatchError(object.code ?? 500, object.message ?? 'watch error'));
              if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED' || type === 'BOOKMARK')
                onEvent({ type, object });
            },
            (error: unknown) => finish(error ?? undefined),
          )
          .then((controller) => {
            request = controller;
            if (settled) controller.abort();
          }, finish);
      });
    },
  };
}
