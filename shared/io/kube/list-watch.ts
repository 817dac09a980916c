// List + watch of one resource, keeping the objects (an informer's store) and reporting every
// change as add / update / delete, the way client-go's reflector keeps a cache (the informer of @kubernetes/client-node lost events
// and never backed off: see git history). The loop:
//   list     emit `add` for what is new, `update` for EVERY object that still exists (after a
//            gap nobody knows what changed: the reconciler re-reads), `delete` for what is gone
//   watch    from the list's resourceVersion (or the last event's), with bookmarks
//   ends     normally (server timeout)      -> watch again from the last resourceVersion
//            410 Gone (expired version)      -> list again at once
//            no connection (API server down) -> watch again from the same version, backing off
//            any other API error             -> list again, backing off
import type { KubernetesObject } from '@kubernetes/client-node';
import { backoffDelay, type BackoffPolicy } from '../../core/queue/backoff.ts';
import type { Verb } from '../../core/apiserver-events.ts';
import type { Logger } from '../log.ts';
import { abortableSleep } from '../sleep.ts';
import { isConnectionError, isExpired, type ListWatchClient, type WatchEvent } from './watch-client.ts';

/** previous: the object as known before this change (undefined for an add). */
export type OnChange = (object: KubernetesObject, verb: Verb, previous?: KubernetesObject) => void;

export interface ListWatch {
  /** The first list has been taken in: the store holds what the API server held then, or later. */
  readonly synced: boolean;
  /** An object by `namespace/name` (`/name` when cluster-scoped). */
  get(key: string): KubernetesObject | undefined;
  list(): KubernetesObject[];
  stop(): Promise<void>;
}

export interface ListWatchOptions {
  readonly client: ListWatchClient;
  readonly onChange: OnChange;
  readonly backoff: BackoffPolicy;
  readonly log: Logger;
  readonly random?: () => number;
  /** Waits ms or until signal aborts (tests record the delays). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const keyOf = (o: KubernetesObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const versionOf = (o: KubernetesObject) => o.metadata?.resourceVersion;

export function startListWatch(options: ListWatchOptions): ListWatch {
  const { client, onChange, backoff, log, random = Math.random, sleep = abortableSleep } = options;
  const stopping = new AbortController();
  const known = new Map<string, KubernetesObject>();
  let listedBefore = false;
  let synced = false;

  // 1: a list replaces what is known; the differences (and every survivor) are emitted.
  async function relist(): Promise<string> {
    const { items, resourceVersion } = await client.list();
    const seen = new Set<string>();
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      const before = known.get(key);
      known.set(key, item);
      const same = before !== undefined && before.metadata?.uid === item.metadata?.uid;
      if (before && !same) onChange(before, 'delete', before);
      if (same) onChange(item, 'update', before);
      else onChange(item, 'add');
    }
    for (const [key, object] of known) {
      if (!seen.has(key)) {
        known.delete(key);
        onChange(object, 'delete', object);
      }
    }
    if (listedBefore) log.info({ objects: items.length }, 'listed again; every object re-emitted');
    listedBefore = true;
    synced = true;
    return resourceVersion;
  }

  // 2: one watch event; returns the resourceVersion to resume from.
  function apply(event: WatchEvent): string | undefined {
    const object = event.object;
    if (event.type === 'ADDED' || event.type === 'MODIFIED') {
      const before = known.get(keyOf(object));
      known.set(keyOf(object), object);
      if (before) onChange(object, 'update', before);
      else onChange(object, 'add');
    } else if (event.type === 'DELETED') {
      const before = known.get(keyOf(object));
      known.delete(keyOf(object));
      onChange(object, 'delete', before ?? object);
    }
    return versionOf(object);
  }

  async function run(): Promise<void> {
    let version: string | undefined;
    let failures = 0;
    let expiredInARow = 0;
    const pause = () => sleep(backoffDelay(++failures, backoff, random), stopping.signal);
    while (!stopping.signal.aborted) {
      let events = 0;
      try {
        if (version === undefined) version = await relist();
        await client.watch(
          version,
          (event) => {
            events++;
            version = apply(event) ?? version;
          },
          stopping.signal,
        );
        if (events > 0) {
          failures = 0;
          expiredInARow = 0;
        } else if (!stopping.signal.aborted) {
          await pause(); // a stream that ends at once, again and again, must not spin
        }
      } catch (error) {
        if (stopping.signal.aborted) break;
        if (events > 0) failures = 0;
        if (isExpired(error)) {
          // 3: the version is older than what the server keeps: list again, at once the first time.
          log.info({ version }, 'watch expired (410 Gone); listing again');
          version = undefined;
          if (++expiredInARow > 1) await pause();
        } else if (isConnectionError(error)) {
          log.warn({ err: error, failures: failures + 1 }, 'API server unreachable; watching again');
          await pause();
        } else {
          log.warn({ err: error, failures: failures + 1 }, 'list or watch failed; listing again');
          version = undefined;
          await pause();
        }
      }
    }
  }

  const running = run().catch((error: unknown) => log.error({ err: error }, 'list-watch loop ended'));
  return {
    get synced() {
      return synced;
    },
    get: (key) => known.get(key),
    list: () => [...known.values()],
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
