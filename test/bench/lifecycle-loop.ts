// The reconciler run in-process, as the queue runs it, with every API request it makes counted
// by verb and resource (reads and writes apart): what one reconcile costs the API server.
import type { KubeConfig } from '@kubernetes/client-node';
import { createReconcile } from '../../functions/reconcile/reconcile.ts';
import { soleOwner } from '../../shared/io/queue/queue-worker.ts';
import { WRITE_VERBS, type Verb } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';

export interface Requests {
  reads: number;
  writes: number;
  /** `verb resource` -> count. */
  byKind: Map<string, number>;
}

export interface CountedReconcile {
  /** Runs `passes` reconciles of `key` one after the other; the requests they made, summed. */
  run(key: string, passes: number): Promise<Requests>;
}

export function countedReconcile(kubeConfig: KubeConfig, log: Logger): CountedReconcile {
  let requests: Requests = { reads: 0, writes: 0, byKind: new Map() };
  const reconcile = createReconcile({
    kubeConfig,
    counter: {
      count(verb: Verb, resource: string) {
        if (WRITE_VERBS.has(verb)) requests.writes++;
        else requests.reads++;
        const kind = `${verb} ${resource}`;
        requests.byKind.set(kind, (requests.byKind.get(kind) ?? 0) + 1);
      },
    },
  });
  let runs = 0;
  return {
    async run(key, passes) {
      requests = { reads: 0, writes: 0, byKind: new Map() };
      for (let i = 0; i < passes; i++)
        await reconcile(key, {
          signal: new AbortController().signal,
          log,
          reconcileId: `bench-${++runs}`,
          failures: 0,
          assertOwner: soleOwner,
        });
      return requests;
    },
  };
}
