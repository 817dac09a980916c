// The built-in event source across a restart of the real kube-apiserver. While the API server
// is down, one RedisCluster is changed and one deleted straight in etcd (what a second API
// server of an HA control plane would do meanwhile); one is created after it is back.
// Whether the running event source's first watch after the restart meets a 503 (the new
// server's watch cache still starting) or a 410 (its old version expired) depends on timing;
// the last test forces the 410 path by resuming a loop from a version read before the restart.
import { expect } from 'chai';
import express from 'express';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { HTTP } from 'cloudevents';
import { CoreV1Api, KubernetesObjectApi, Watch } from '@kubernetes/client-node';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { createHttpApp } from '../../../shared/io/express-app.ts';
import { listen, type Listening } from '../../../shared/io/http.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { createRegistry } from '../../../shared/io/metrics.ts';
import { API_VERSION_V1BETA1, KIND } from '../../../shared/core/api/group.ts';
import { start as startEventSource } from '../../../functions/event-source/index.ts';
import { readConfig } from '../../../functions/start-config.ts';
import type { RunningFunction } from '../../../functions/function-context.ts';
import { senderTokenFile, type SenderToken } from '../../support/sender-token.ts';
import { startListWatch } from '../../../shared/io/kube/list-watch.ts';
import { isExpired, watchClient, type ListWatchClient } from '../../../shared/io/kube/watch-client.ts';
import { watchedResources } from '../../../functions/event-source/watched.ts';
import { restartComponent } from '../../../infra/local/restart.ts';
import { isRunning } from '../../../infra/local/processes.ts';
import { readState, type EnvState } from '../../../infra/local/state.ts';

interface Received {
  verb: string;
  name: string;
  labels: Record<string, string>;
}

/** etcd's JSON gateway (v3 API over HTTP) on the environment's client port. */
function etcdOf(state: EnvState) {
  const call = async (op: string, body: object) => {
    const res = await fetch(`http://127.0.0.1:${state.ports.etcd}/v3/kv/${op}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`etcd ${op}: HTTP ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ kvs?: { value: string }[]; deleted?: string }>;
  };
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  return {
    async get(key: string): Promise<Record<string, unknown> & { metadata: { labels?: Record<string, string> } }> {
      const value = (await call('range', { key: b64(key) })).kvs?.[0]?.value;
      if (!value) throw new Error(`etcd has no ${key}`);
      return JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
    },
    put: (key: string, object: object) => call('put', { key: b64(key), value: b64(JSON.stringify(object)) }),
    async delete(key: string) {
      if ((await call('deleterange', { key: b64(key) })).deleted !== '1') throw new Error(`etcd did not delete ${key}`);
    },
  };
}

describe('event source across an API server restart', function () {
  this.timeout(240_000);
  let api: InstalledApi;
  let sink: Listening;
  let source: RunningFunction | undefined;
  let ns: string;
  let token: SenderToken | undefined;
  const received: Received[] = [];
  let mark = 0;
  let oldPid = 0;
  let restarted: EnvState;
  let beforeRestart: Awaited<ReturnType<ListWatchClient['list']>>;
  let client: ListWatchClient;
  const silent = createLogger({ level: 'silent' });
  const names = ['kept', 'changed', 'removed'];

  const cluster = (name: string) => ({
    apiVersion: API_VERSION_V1BETA1,
    kind: KIND,
    metadata: { name, namespace: ns },
    spec: { masters: 3 },
  });
  const has = (events: Received[], verb: string, name: string, labels: Record<string, string> = {}) =>
    events.some(
      (r) => r.verb === verb && r.name === name && Object.entries(labels).every(([k, v]) => r.labels[k] === v),
    );

  before(async () => {
    api = await installApi('knredis-event-source-restart-test');
    ns = await api.namespace(`esr-${randomUUID().slice(0, 6)}`);
    const app = createHttpApp({});
    app.post('/', express.raw({ type: () => true }), (req, res) => {
      const event = HTTP.toEvent({ headers: req.headers, body: req.body.toString('utf8') });
      const one = Array.isArray(event) ? event[0]! : event;
      const data = one.data as { kind?: string; metadata?: { name?: string; labels?: Record<string, string> } };
      if (data.kind === KIND)
        received.push({
          verb: one.type.split('.').pop()!,
          name: data.metadata?.name ?? '',
          labels: data.metadata?.labels ?? {},
        });
      res.status(202).end();
    });
    sink = await listen(app, 0);

    // 1: three RedisClusters, seen by the running event source.
    for (const name of names) await api.objects.create(cluster(name));
    const config = readConfig({
      K_SINK: sink.url + '/',
      KUBECONFIG: api.env.kubeconfigPath,
      WATCH_NAMESPACE: ns,
      EVENT_SOURCE_TOKEN_FILE: (token = await senderTokenFile(api.env)).path,
    });
    source = await startEventSource({
      config,
      log: silent,
      expressApp: async () => express(),
      registry: createRegistry({ defaultMetrics: false }),
      env: {},
      addProbe: () => {},
      serveDirect: () => {},
    });
    for (const name of names) await api.env.waitFor(() => has(received, 'add', name), { what: `add of ${name}` });
    // 2: what a watcher knew before the restart (its list and resourceVersion).
    const resource = watchedResources(ns)[0]!;
    const objects = KubernetesObjectApi.makeApiClient(api.env.kubeConfig());
    client = watchClient(new Watch(api.env.kubeConfig()), () => objects.list(resource.apiVersion, resource.kind, ns), {
      path: resource.path,
      timeoutSeconds: 60,
    });
    beforeRestart = await client.list();
    // 3: the restart; meanwhile one RedisCluster changes and one goes, straight in etcd.
    mark = received.length;
    oldPid = readState(api.env.name)!.processes['kube-apiserver']!.pid;
    const etcd = etcdOf(api.env.state);
    const key = (name: string) => `/registry/cache.redis.io/redisclusters/${ns}/${name}`;
    restarted = await restartComponent(api.env.name, 'kube-apiserver', {
      async whileDown() {
        const changed = await etcd.get(key('changed'));
        await etcd.put(key('changed'), {
          ...changed,
          metadata: { ...changed.metadata, labels: { ...changed.metadata.labels, edited: 'while-down' } },
        });
        await etcd.delete(key('removed'));
      },
    });
    // 4: and one is created once it is back.
    await api.objects.create(cluster('created'));
  });

  after(async function () {
    this.timeout(120_000);
    await source?.close();
    await sink?.close();
    token?.remove();
    await api?.stop();
  });

  it('restarts the API server under a new pid and leaves every node Ready', async () => {
    expect(restarted.processes['kube-apiserver']!.pid).to.not.equal(oldPid);
    expect(readState(api.env.name)!.processes['kube-apiserver']!.pid).to.equal(
      restarted.processes['kube-apiserver']!.pid,
    );
    expect(isRunning(oldPid)).to.equal(false);
    // The environment is shared with later test files: its nodes must be Ready again.
    const core = api.env.kubeConfig().makeApiClient(CoreV1Api);
    await api.env.waitFor(
      async () =>
        (await core.listNode()).items.every((n) =>
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        ),
      { what: 'every node Ready after the restart', timeout: 90_000 },
    );
  });

  it('emits update for every RedisCluster that exists, delete for the one removed meanwhile and add for the new one, then keeps watching', async () => {
    const since = () => received.slice(mark);
    await api.env.waitFor(() => has(since(), 'update', 'changed', { edited: 'while-down' }), {
      what: 'update of the RedisCluster changed while the API server was down',
    });
    await api.env.waitFor(() => has(since(), 'delete', 'removed'), {
      what: 'delete of the RedisCluster removed while the API server was down',
    });
    await api.env.waitFor(() => has(since(), 'update', 'kept'), { what: 'update of the unchanged RedisCluster' });
    await api.env.waitFor(() => has(since(), 'add', 'created'), {
      what: 'add of the RedisCluster created after the restart',
    });
    await api.objects.delete(cluster('created'));
    await api.env.waitFor(() => has(since(), 'delete', 'created'), {
      what: 'delete of the RedisCluster created after the restart',
    });
  });

  it('gets 410 Gone from the restarted server for a pre-restart version, and the loop resuming from it lists again', async () => {
    // The real server's answer to the old version, through the watch client the loop uses.
    const answer = await client
      .watch(beforeRestart.resourceVersion, () => {}, AbortSignal.timeout(30_000))
      .then(
        () => 'ended',
        (error: unknown) => error,
      );
    expect(isExpired(answer), `answer: ${String(answer)}`).to.equal(true);
    // A loop that listed before the restart and watches again only now (as the event source
    // does when its retry lands after the new server is ready).
    let stale: typeof beforeRestart | undefined = beforeRestart;
    const resuming: ListWatchClient = {
      list: async () => {
        const first = stale;
        stale = undefined;
        return first ?? client.list();
      },
      watch: client.watch,
    };
    const events: Received[] = [];
    const lines: { msg?: string }[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const loop = startListWatch({
      client: resuming,
      backoff: { baseMs: 200, maxMs: 2_000, jitter: 0.2 },
      log: createLogger({ level: 'info', destination }),
      onChange: (o, verb) => events.push({ verb, name: o.metadata?.name ?? '', labels: o.metadata?.labels ?? {} }),
    });
    try {
      await api.env.waitFor(() => lines.some((l) => /listed again/.test(l.msg ?? '')), {
        what: 'the relist after 410',
      });
      expect(lines.some((l) => /410 Gone/.test(l.msg ?? ''))).to.equal(true);
      const relisted = events.slice(names.length);
      expect(has(relisted, 'update', 'kept')).to.equal(true);
      expect(has(relisted, 'update', 'changed', { edited: 'while-down' })).to.equal(true);
      expect(has(relisted, 'delete', 'removed')).to.equal(true);
    } finally {
      await loop.stop();
    }
  });
});
