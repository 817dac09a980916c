// What knredis selects and deletes on the real API server is only what it created for the
// cluster: another workload in the namespace that carries the same recommended labels
// (app.kubernetes.io/name=redis-cluster, app.kubernetes.io/instance=<cluster>) keeps its pods
// out of the Services, the PDB and the reconciler's observation, and its volumes through a
// deletion with reclaim: Delete.
import { expect } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { finalize } from '../../../functions/reconcile/finalize.ts';
import { recorder } from '../../../functions/reconcile/events.ts';
import { observeChildren, passwordOf } from '../../../functions/reconcile/observe.ts';
import { activeSecretName } from '../../../shared/core/reconcile/rotation-record.ts';
import { monitorSecretName } from '../../../shared/core/resources/monitor-user.ts';
import { childNames, FINALIZER, PASSWORD_KEY } from '../../../shared/core/resources/names.ts';
import { childLabels } from '../../../shared/core/resources/meta.ts';
import {
  desiredClientService,
  desiredHeadlessService,
  desiredPodDisruptionBudget,
} from '../../../shared/core/resources/objects.ts';
import { KubeClient } from '../../../shared/io/kube/kube-client.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { waitFor } from '../../support/wait-for.ts';
import { installApi, type InstalledApi } from './api-fixture.ts';

const CLUSTER = 'own';
const generic = { 'app.kubernetes.io/name': 'redis-cluster', 'app.kubernetes.io/instance': CLUSTER };

describe('what knredis selects and deletes on the API server', function () {
  this.timeout(120_000);
  let api: InstalledApi;
  let ns: string;
  let kube: KubeClient;
  const log = createLogger({ level: 'warn', name: 'ownership-test' });

  before(async function () {
    this.timeout(300_000);
    api = await installApi(`knredis-ownership-test-${process.pid}`);
    ns = await api.namespace(`own-${process.pid}`);
    kube = new KubeClient(api.env.kubeConfig());
  });

  after(async () => {
    await api?.stop();
  });

  const kubectl = (args: string[], input?: string) =>
    api.env.kubectl(['-n', ns, ...args], input === undefined ? {} : { input });
  const create = (obj: object) => kubectl(['create', '-f', '-'], JSON.stringify(obj));
  const names = async (resource: string, selector: Record<string, string>) =>
    (
      await kubectl([
        'get',
        resource,
        '-l',
        Object.entries(selector)
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
        '-o',
        'name',
      ])
    )
      .trim()
      .split('\n')
      .filter(Boolean)
      .sort();
  // Never scheduled: the test is about which objects match, not about running Redis.
  const pod = (name: string, labels: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { nodeSelector: { 'knredis.test/nowhere': 'true' }, containers: [{ name: 'redis', image: 'redis:7.0' }] },
  });
  const claim = (name: string, labels: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, labels },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'none', resources: { requests: { storage: '1Mi' } } },
  });

  it('lets the Services and the PDB select only the pods knredis made for the cluster', async () => {
    await kubectl(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: CLUSTER },
        spec: {},
      }),
    );
    const rc = JSON.parse(await kubectl(['get', 'rediscluster', CLUSTER, '-o', 'json']));
    const owner = { metadata: { name: CLUSTER, namespace: ns, uid: rc.metadata.uid as string } };
    for (const child of [
      desiredClientService(owner),
      desiredHeadlessService(owner),
      desiredPodDisruptionBudget(owner, 1),
    ] as KubernetesObject[]) {
      await kubectl(['apply', '--server-side', '--field-manager', 'knredis', '-f', '-'], JSON.stringify(child));
    }
    await create(pod(`${CLUSTER}-0`, childLabels(CLUSTER, 'redis')));
    await create(pod('web-0', generic));
    // another workload's pod named like one of ours
    await create(pod(`${CLUSTER}-5`, generic));
    const selected: Record<string, string[]> = {};
    for (const [what, resource, name, path] of [
      ['client Service', 'service', CLUSTER, ['spec', 'selector']],
      ['headless Service', 'service', `${CLUSTER}-nodes`, ['spec', 'selector']],
      ['PodDisruptionBudget', 'poddisruptionbudget', CLUSTER, ['spec', 'selector', 'matchLabels']],
    ] as const) {
      // The selector as the API server stored it, asked of the API server.
      const stored = path.reduce((o, k) => o[k], JSON.parse(await kubectl(['get', resource, name, '-o', 'json'])));
      selected[what] = await names('pods', stored);
    }
    expect(selected).to.deep.equal({
      'client Service': [`pod/${CLUSTER}-0`],
      'headless Service': [`pod/${CLUSTER}-0`],
      PodDisruptionBudget: [`pod/${CLUSTER}-0`],
    });
  });

  it("reads the cluster's Secrets with one list, and by name any that lost knredis' labels", async () => {
    const secret = (name: string, labels: Record<string, string>, password: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, labels },
      stringData: { [PASSWORD_KEY]: password },
    });
    await create(secret(childNames(CLUSTER).generatedSecret, childLabels(CLUSTER, 'auth'), 'generated'));
    // Its labels removed by hand: its password must still be found, never replaced by a new one.
    await create(secret(activeSecretName(CLUSTER), {}, 'in force'));
    await create(secret(monitorSecretName(CLUSTER), childLabels(CLUSTER, 'monitor'), 'monitor'));
    await create(secret(`${CLUSTER}-lookalike`, childLabels(CLUSTER, 'auth'), 'another'));
    const requests: string[] = [];
    const counted = new KubeClient(api.env.kubeConfig(), {
      count: (verb, resource) => requests.push(`${verb} ${resource}`),
    });
    const observed = await observeChildren(counted, (await kube.getCluster(ns, CLUSTER))!, Date.now());
    const { secret: auth, activeSecret, monitorSecret } = observed.children;
    expect({
      auth: passwordOf(auth, PASSWORD_KEY),
      active: passwordOf(activeSecret, PASSWORD_KEY),
      monitor: passwordOf(monitorSecret, PASSWORD_KEY),
    }).to.deep.equal({ auth: 'generated', active: 'in force', monitor: 'monitor' });
    expect(requests.filter((r) => /secret/i.test(r))).to.deep.equal(['list secrets', 'get Secret']);
  });

  it('deletes, with reclaim: Delete, only the claims that carry its labels AND a claim name of its StatefulSet', async () => {
    await kubectl([
      'patch',
      'rediscluster',
      CLUSTER,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ metadata: { finalizers: [FINALIZER] }, spec: { storage: { reclaim: 'Delete' } } }),
    ]);
    const data = childLabels(CLUSTER, 'data');
    const ours = [`data-${CLUSTER}-0`, `data-${CLUSTER}-2`, /* kept from a former larger size */ `data-${CLUSTER}-9`];
    const theirs = [
      ['web-data-0', generic], // another workload's claim with the recommended labels
      [`data-${CLUSTER}-1`, generic], // a claim name the StatefulSet would use, without knredis' labels
      [`backup-${CLUSTER}`, data], // knredis' labels copied onto a claim the StatefulSet never made
    ] as const;
    for (const name of ours) await create(claim(name, data));
    for (const [name, labels] of theirs) await create(claim(name, labels));
    await kubectl(['delete', 'rediscluster', CLUSTER, '--wait=false']);
    const cluster = (await kube.getCluster(ns, CLUSTER))!;
    // What a reconcile pass works on (restarts, deletes, annotates) is only ours, too.
    const observed = await observeChildren(kube, cluster, Date.now());
    expect({ pods: observed.pods.map((p) => p.name), claims: observed.claims.map((c) => c.name).sort() }).to.deep.equal(
      { pods: [`${CLUSTER}-0`], claims: ours },
    );
    await finalize(kube, cluster, recorder(kube, cluster, log), log);
    const gone = async (name: string) => {
      const out = await kubectl(['get', 'pvc', name, '--ignore-not-found', '-o', 'json']);
      return out.trim() === '' || JSON.parse(out).metadata.deletionTimestamp !== undefined;
    };
    for (const name of ours) await waitFor(() => gone(name), { what: `claim ${name} deleted` });
    const left: Record<string, boolean> = {};
    for (const [name] of theirs) left[name] = await gone(name);
    expect(left).to.deep.equal({ 'web-data-0': false, [`data-${CLUSTER}-1`]: false, [`backup-${CLUSTER}`]: false });
    await waitFor(async () => (await kube.getCluster(ns, CLUSTER)) === undefined, {
      what: 'the RedisCluster gone once its finalizer was removed',
    });
  });
});
