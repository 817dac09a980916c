// Drives the real reconciler against the local environment the way the queue would: run,
// honour requeueAfter, retry errors, until what a user would observe holds.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { createReconcile, type ReconcilerDeps } from '../../../functions/reconcile/reconcile.ts';
import { runAbortController, soleOwner } from '../../../shared/io/queue/queue-worker.ts';
import { GROUP, PLURAL, STORAGE_VERSION } from '../../../shared/core/api/group.ts';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { WRITE_VERBS, type Verb } from '../../../shared/io/kube/kube-client.ts';
import { createLogger } from '../../../shared/io/log.ts';
import type { InstalledApi } from '../api/api-fixture.ts';

export interface Driver {
  readonly writes: { verb: Verb; resource: string }[];
  /** Every log line the reconciler wrote (debug and up), to check what it never says. */
  readonly logLines: string[];
  /** Runs passes until `until` holds; throws with the last status when it does not in time. */
  until(
    key: string,
    what: string,
    until: (rc: RedisCluster | undefined) => boolean,
    timeoutMs?: number,
  ): Promise<RedisCluster | undefined>;
  once(key: string): Promise<void>;
  get(namespace: string, name: string): Promise<RedisCluster | undefined>;
  /** Deletes a RedisCluster and runs passes until its finalizer let it go (test clean-up). */
  remove(namespace: string, name: string): Promise<void>;
}

/** The reconciler's settings a test may change: another identity (kubeConfig), a namespaced install. */
export type DriverOptions = Partial<Pick<ReconcilerDeps, 'passwordGraceMs' | 'kubeConfig' | 'watchNamespace'>>;

export function driver(api: InstalledApi, options: DriverOptions = {}): Driver {
  const writes: { verb: Verb; resource: string }[] = [];
  const logLines: string[] = [];
  const shown = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'].indexOf(process.env.KNREDIS_TEST_LOG ?? 'warn');
  const log = createLogger({
    level: 'debug',
    name: 'reconcile-test',
    destination: {
      write: (line: string) => {
        logLines.push(line);
        if ((JSON.parse(line) as { level: number }).level >= 10 * (shown + 1)) process.stdout.write(line);
      },
    },
  });
  const reconcile = createReconcile({
    kubeConfig: api.env.kubeConfig(),
    maxSlotsPerStep: 1024,
    ...options,
    counter: {
      count: (verb, resource) => {
        if (WRITE_VERBS.has(verb)) writes.push({ verb, resource });
      },
    },
  });
  const custom = api.env.kubeConfig().makeApiClient(CustomObjectsApi);
  const get = async (namespace: string, name: string) => {
    try {
      return (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: STORAGE_VERSION,
        namespace,
        plural: PLURAL,
        name,
      })) as RedisCluster;
    } catch {
      return undefined;
    }
  };
  let runs = 0;
  const once = async (key: string) => {
    const { signal } = runAbortController();
    const outcome = await reconcile(key, {
      signal,
      log,
      reconcileId: `t${++runs}`,
      failures: 0,
      assertOwner: soleOwner,
    });
    return outcome;
  };
  const driverApi: Driver = {
    writes,
    logLines,
    get,
    async remove(namespace, name) {
      await api.env.kubectl(['delete', 'rediscluster', name, '-n', namespace, '--ignore-not-found', '--wait=false']);
      await driverApi.until(`${namespace}/${name}`, `${name} deleted`, (rc) => rc === undefined, 60_000);
    },
    async once(key) {
      await once(key);
    },
    async until(key, what, until, timeoutMs = 120_000) {
      const [namespace = '', name = ''] = key.split('/');
      const deadline = Date.now() + timeoutMs;
      let lastError: unknown;
      // At least one pass first: the status read before it may predate the change under test.
      for (let pass = 0; ; pass++) {
        const rc = await get(namespace, name);
        if (pass > 0 && until(rc)) return rc;
        if (Date.now() > deadline) {
          throw new Error(
            `timed out waiting for ${what}; status: ${JSON.stringify(rc?.status?.conditions?.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`))}; last error: ${(lastError as Error | undefined)?.message}`,
          );
        }
        let wait = 300;
        try {
          const outcome = await once(key);
          if (outcome.kind === 'requeueAfter') wait = Math.min(Math.max(outcome.ms, 50), 2_000);
        } catch (error) {
          lastError = error;
          wait = 1_000;
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    },
  };
  return driverApi;
}

export function isReady(rc: RedisCluster | undefined): boolean {
  return (
    rc?.status?.conditions?.some(
      (c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === rc.metadata.generation,
    ) ?? false
  );
}
