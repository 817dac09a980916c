// The error policy and cancellation on the real API server: a failed pass is told once, as a
// Warning Event and the Degraded condition; a run that lost its key says nothing; the run's
// signal stops Kubernetes requests.
import { expect } from 'chai';
import type { RedisCluster } from '../../../shared/core/api/v1beta1.ts';
import { OwnershipLostError, ReconcileTimeoutError } from '../../../shared/core/outcome.ts';
import { KubeClient } from '../../../shared/io/kube/kube-client.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { reportFailure } from '../../../functions/reconcile/error-policy.ts';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { driver, type Driver } from './harness.ts';

interface EventList {
  items: { reason: string; type: string; message: string; count: number; involvedObject: { name: string } }[];
}

describe('reconcile: the error policy and cancellation (on the local Kubernetes)', function () {
  this.timeout(120_000);
  let api: InstalledApi;
  let drive: Driver;
  let kube: KubeClient;
  let ns: string;
  const log = createLogger({ level: 'silent' });

  before(async () => {
    api = await installApi(`knredis-errors-${process.pid}`);
    drive = driver(api);
    kube = new KubeClient(api.env.kubeConfig());
    ns = await api.namespace(`rc-errors-${process.pid}`);
  });
  after(async () => {
    await api?.stop();
  });

  const create = async (name: string, spec: object) => {
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name, namespace: ns },
        spec,
      }),
    });
    return (await drive.get(ns, name)) as RedisCluster;
  };
  const warnings = async (name: string, reason: string) =>
    ((JSON.parse(await api.env.kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as EventList).items ?? []).filter(
      (e) => e.involvedObject.name === name && e.type === 'Warning' && e.reason === reason,
    );
  const degraded = (rc: RedisCluster | undefined) => rc?.status?.conditions?.find((c) => c.type === 'Degraded');

  it('tells a pass the API server refuses once, as a Warning Event and the Degraded condition, each pass', async () => {
    // A quota of no StatefulSets in the namespace: the API server refuses the pass's apply.
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'no-statefulsets', namespace: ns },
        spec: { hard: { 'count/statefulsets.apps': '0' } },
      }),
    });
    await create('refused', { masters: 3, replicasPerMaster: 0 });
    const failures: unknown[] = [];
    for (let pass = 0; pass < 2; pass++) await drive.once(`${ns}/refused`).catch((error) => failures.push(error));
    expect(failures).to.have.length(2);
    const rc = await drive.get(ns, 'refused');
    expect(degraded(rc)).to.include({ status: 'True', reason: 'ReconcileError' });
    expect(degraded(rc)?.message).to.contain('403').and.contain('exceeded quota');
    expect(rc?.status?.phase).to.equal('Creating');
    const events = await warnings('refused', 'ReconcileFailed');
    expect(events, 'one Event object, counted once per failed pass').to.have.length(1);
    expect(events[0]?.count).to.equal(2);
    expect(events[0]?.message).to.equal(degraded(rc)?.message);
    await api.env.kubectl(['delete', 'resourcequota', 'no-statefulsets', '-n', ns]);
  });

  it('says nothing for a run that lost its key', async () => {
    const cluster = await create('taken', { masters: 3, replicasPerMaster: 0, paused: true });
    const lost = new OwnershipLostError(`${ns}/taken`);
    const thrown = await reportFailure(lost, {
      kube,
      cluster,
      log,
      clock: Date.now,
      signal: new AbortController().signal,
    });
    expect(thrown).to.equal(lost);
    expect(await warnings('taken', 'ReconcileFailed')).to.have.length(0);
    expect(degraded(await drive.get(ns, 'taken'))).to.equal(undefined);
  });

  it('tells a run its time budget stopped, by the reason its signal carries', async () => {
    const cluster = await create('slow', { masters: 3, replicasPerMaster: 0, paused: true });
    const abort = new AbortController();
    abort.abort(new ReconcileTimeoutError(5));
    const thrown = await reportFailure(new Error('The operation was aborted.'), {
      kube,
      cluster,
      log,
      clock: Date.now,
      signal: abort.signal,
    });
    expect(thrown).to.be.instanceOf(ReconcileTimeoutError);
    expect(degraded(await drive.get(ns, 'slow'))?.message).to.equal('reconcile did not finish within 5 ms');
    expect(await warnings('slow', 'ReconcileFailed')).to.have.length(1);
  });

  it('stops Kubernetes requests once the run is aborted, through either client of the adapter', async () => {
    const abort = new AbortController();
    abort.abort(new ReconcileTimeoutError(5));
    const aborted = (call: Promise<unknown>) =>
      call.then(
        () => 'answered',
        (error: Error) => error.name,
      );
    const signal = abort.signal;
    expect(await aborted(kube.getCluster(ns, 'slow', signal))).to.equal('AbortError');
    expect(await aborted(kube.read('v1', 'ConfigMap', ns, 'anything', signal))).to.equal('AbortError');
    expect(await aborted(kube.listPods(ns, 'app=x', signal))).to.equal('AbortError');
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'never', namespace: ns } };
    expect(await aborted(kube.apply(configMap, signal))).to.equal('AbortError');
    expect(await aborted(kube.read('v1', 'ConfigMap', ns, 'never'))).to.equal('answered');
    expect(await kube.read('v1', 'ConfigMap', ns, 'never')).to.equal(undefined);
  });
});
