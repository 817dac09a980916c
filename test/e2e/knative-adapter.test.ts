// Knative's own ApiServerSource adapter (eventing v0.50.0, built from the Go module proxy) as
// the ONLY event source of the operator: K_SOURCE_CONFIG is made from
// infra/knative/apiserversource.yaml, the sink is knredis ingest, and the periodic resync is an
// hour away, so every reconcile below was started by an event the adapter sent. A RedisCluster
// is created, scaled out, healed after its pod is killed, and deleted, in Resource mode (the
// whole object) and in Reference mode (only the object's own reference, which ingest resolves
// through its API lookup). In Resource mode it is also scaled in while the queue's Redis is
// down, so the adapter drops the event, and reconciled once the queue is back.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  adapterWatching,
  openWatches,
  startKnativeAdapter,
  type RunningAdapter,
} from '../../infra/local/knative/adapter.ts';
import { installKnative } from '../../infra/local/knative/install.ts';
import type { EventMode } from '../../infra/local/knative/source-config.ts';
import { startOperatorStack, type OperatorStack } from '../../infra/local/operator-stack.ts';
import { localEnvironment, type LocalEnvironment } from '../support/local-env.ts';
import { ClusterView, counter, fullShape } from './observe.ts';

const modes: EventMode[] = ['Resource', 'Reference'];

/** The errors of the deliveries the adapter gave up on, in order (its log is JSON lines). */
async function droppedDeliveries(log: string): Promise<string[]> {
  return (await readFile(log, 'utf8'))
    .split('\n')
    .filter((line) => line.includes('failed to send cloudevent'))
    .map((line) => (JSON.parse(line) as { error: string }).error);
}

describe('Knative ApiServerSource adapter as the only event source (real adapter, local Kubernetes)', function () {
  this.timeout(900_000);
  let env: LocalEnvironment;
  let stack: OperatorStack;
  let ns: string;
  const figures: [string, string][] = [];
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

  before(async function () {
    env = await localEnvironment();
    // Knative's CRDs and webhooks too: the e2e of the manifests shares the environment.
    await installKnative(env.name);
    ns = `knative-e2e-${process.pid}`;
    await env.kubectl(['create', 'namespace', ns]);
    stack = await startOperatorStack({
      kubeconfig: env.kubeconfigPath,
      kubectl: env.kubectlPath,
      dir: await mkdtemp(join(tmpdir(), 'knredis-knative-e2e-')),
      webhookConfigurationName: `knredis-knative-e2e-${process.pid}`,
      eventSource: 'none',
      // No resync within the test: only the adapter's events start reconciles (the worker's
      // own requeue-after continues a run it started).
      extraEnv: { RESYNC_INTERVAL_MS: '3600000', RESYNC_JITTER_MS: '0' },
    });
  });
  after(async function () {
    this.timeout(120_000);
    await env?.kubectl(['delete', 'namespace', ns, '--wait=false']).catch(() => {});
    await stack?.stop();
    console.log(`\n  knative e2e figures:\n${figures.map(([k, v]) => `    ${k.padEnd(48)} ${v}`).join('\n')}\n`);
  });

  for (const mode of modes) {
    describe(`${mode} mode`, function () {
      let adapter: RunningAdapter;
      const name = `kn-${mode.toLowerCase()}`;
      let view: ClusterView;
      /** Deliveries the adapter gave up on while the queue was away on purpose (all 503s). */
      let droppedInOutage = 0;
      const kubectl = (...args: string[]) => env.kubectl([...args, '-n', ns]);

      before(async function () {
        // The CRD exists (the stack installed it): the adapter would skip a missing type for good.
        const before = openWatches(await env.kubectl(['get', '--raw', '/metrics']));
        adapter = await startKnativeAdapter({
          kubeconfig: env.kubeconfigPath,
          sink: stack.urls.ingest,
          mode,
          log: join(stack.dir, 'logs', `apiserver-adapter-${mode}.log`),
        });
        // It sends nothing for what exists when its watches start: wait until every one runs.
        await env.waitFor(
          async () =>
            adapter.process.alive()
              ? adapterWatching(adapter.config, before, openWatches(await env.kubectl(['get', '--raw', '/metrics'])))
              : Promise.reject(new Error(`the adapter exited; see ${adapter.process.log}`)),
          { what: `the ${mode}-mode adapter watching every resource of apiserversource.yaml`, timeout: 60_000 },
        );
        view = new ClusterView(env, ns, name);
      });
      after(async function () {
        await adapter?.process.stop(10_000);
      });

      it('sends the adapter config made from infra/knative/apiserversource.yaml, in this mode', function () {
        expect(adapter.config.mode).to.equal(mode);
        expect(adapter.config.allNamespaces).to.equal(true);
        expect(adapter.config.resources.map((r) => r.gvr.Resource)).to.include.members(['redisclusters', 'pods']);
      });

      it("creates a RedisCluster from the adapter's add event, to Ready", async function () {
        const started = Date.now();
        await env.kubectl(['apply', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'cache.redis.io/v1beta1',
            kind: 'RedisCluster',
            metadata: { name, namespace: ns },
            spec: { masters: 3, replicasPerMaster: 0, storage: { reclaim: 'Delete' } },
          }),
        });
        await view.until(`${name} Ready with 3 masters`, fullShape(3, 0));
        figures.push([`${mode}: create 3x0 to Ready`, seconds(Date.now() - started)]);
      });

      it("scales out from the adapter's update event", async function () {
        const started = Date.now();
        await kubectl('patch', 'rediscluster', name, '--type=merge', '-p', '{"spec":{"masters":4}}');
        await view.until(`${name} Ready with 4 masters`, fullShape(4, 0));
        figures.push([`${mode}: scale-out 3 -> 4 to Ready`, seconds(Date.now() - started)]);
      });

      it("heals after a pod is killed, from the adapter's pod events", async function () {
        const pod = (await view.pods())[0]!;
        const started = Date.now();
        await kubectl('delete', 'pod', pod.name, '--wait=false');
        await env.waitFor(
          async () => {
            const back = (await view.pods()).find((p) => p.name === pod.name);
            return !!back && back.uid !== pod.uid && fullShape(4, 0)(await view.get());
          },
          { what: `${pod.name} back and ${name} in full shape`, timeout: 300_000, interval: 500 },
        );
        figures.push([`${mode}: heal after a pod kill`, seconds(Date.now() - started)]);
      });

      if (mode === 'Resource')
        it("reconciles a change made while the queue's Redis was down, once it is back (the resync ingest owes)", async function () {
          // The adapter retries a 503 for about 3 s and then drops the event for good; with the
          // periodic resync an hour away, only the resync ingest owes after refusing events
          // (functions/ingest/owed-resync.ts) can bring this change in.
          await stack.stopQueue();
          const before = (await droppedDeliveries(adapter.process.log)).length;
          await kubectl('patch', 'rediscluster', name, '--type=merge', '-p', '{"spec":{"masters":3}}');
          await env.waitFor(async () => (await droppedDeliveries(adapter.process.log)).length > before, {
            what: 'the adapter giving up on the update event (ingest answers 503 while the queue is away)',
            timeout: 120_000,
          });
          const dropped = await droppedDeliveries(adapter.process.log);
          expect(
            dropped.slice(before).every((error) => error.startsWith('503')),
            dropped.join('\n'),
          ).to.equal(true);
          const started = Date.now();
          await stack.startQueue();
          await view.until(`${name} Ready with 3 masters after the outage`, fullShape(3, 0));
          droppedInOutage = (await droppedDeliveries(adapter.process.log)).length;
          figures.push([`${mode}: change made in a queue outage, Ready after it`, seconds(Date.now() - started)]);
        });

      it("deletes the RedisCluster and what it owned, from the adapter's delete event", async function () {
        await kubectl('delete', 'rediscluster', name, '--wait=false');
        await view.until(`${name} gone`, (rc) => rc === undefined, 120_000);
        await env.waitFor(async () => (await view.owned('pods,statefulsets,services,configmaps')).length === 0, {
          what: `everything ${name} owned gone`,
          timeout: 120_000,
        });
        // Every event reached ingest: the adapter gave up on none (no 5xx, no connection error).
        // In Reference mode the delete events of children carry only a reference to an object
        // that is gone with its owner: nothing can map them, and ingest says so with a 400.
        const refused = mode === 'Reference' ? /^400: / : /^$/;
        const failures = (await droppedDeliveries(adapter.process.log)).slice(droppedInOutage);
        expect(failures.filter((error) => !refused.test(error))).to.deep.equal([]);
        expect(await counter(stack.urls.metrics, 'workqueue_adds_total')).to.be.greaterThan(0);
      });
    });
  }
});
