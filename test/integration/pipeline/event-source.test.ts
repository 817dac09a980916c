import { expect } from 'chai';
import express from 'express';
import { randomUUID } from 'node:crypto';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { createHttpApp } from '../../../shared/io/express-app.ts';
import { listen, type Listening } from '../../../shared/io/http.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { createRegistry } from '../../../shared/io/metrics.ts';
import {
  API_VERSION_V1BETA1,
  KIND,
  LABEL_CLUSTER,
  LABEL_INSTANCE,
  LABEL_MANAGED_BY,
  MANAGED_BY_VALUE,
} from '../../../shared/core/api/group.ts';
import { ingestHandler } from '../../../functions/ingest/app.ts';
import { kubeOwnerLookup } from '../../../functions/kube.ts';
import { toKeys } from '../../../functions/ingest/to-keys.ts';
import { start as startEventSource } from '../../../functions/event-source/index.ts';
import { readConfig } from '../../../functions/start-config.ts';
import type { RunningFunction } from '../../../functions/function-context.ts';
import { realSenderCheck, senderTokenFile, type SenderToken } from '../../support/sender-token.ts';

describe('event source', function () {
  this.timeout(180_000);
  const log = createLogger({ level: 'silent' });
  let api: InstalledApi;
  let sink: Listening;
  let source: RunningFunction | undefined;
  let ns: string;
  let token: SenderToken;
  const received: { type: string; subject: string; keys: string[] }[] = [];
  const posted: string[] = [];

  before(async () => {
    api = await installApi('knredis-event-source-test');
    ns = await api.namespace(`es-${randomUUID().slice(0, 6)}`);
    token = await senderTokenFile(api.env);
    // The sink is the real ingest router, authenticating the sender: the test sees the keys
    // ingest would queue.
    let last: { type: string; subject: string } = { type: '', subject: '' };
    const ingest = ingestHandler({
      enqueue: async (key) => {
        received.push({ ...last, keys: [key] });
      },
      checkSender: realSenderCheck(api.env),
      maxBodyBytes: 1 << 20,
      maxEvents: 100,
      retryAfterS: 1,
      log,
      lookup: kubeOwnerLookup(api.env.kubeConfig()),
    });
    sink = await listen(
      createHttpApp({}),
      0,
      '127.0.0.1',
      new Map([
        [
          'POST /',
          (req, res) => {
            last = { type: String(req.headers['ce-type']), subject: String(req.headers['ce-subject']) };
            posted.push(last.subject);
            ingest(req, res);
          },
        ],
      ]),
    );
  });
  after(async () => {
    await source?.close();
    await sink?.close();
    token?.remove();
    await api?.stop();
  });

  const cluster = (name: string) => ({
    apiVersion: API_VERSION_V1BETA1,
    kind: KIND,
    metadata: { name, namespace: ns },
    spec: { masters: 3 },
  });
  const seen = (type: string, key: string) => received.some((r) => r.type === type && r.keys.includes(key));

  it('emits add for what exists, then turns a created, updated and deleted RedisCluster and a labelled child into their keys', async () => {
    await api.objects.create(cluster('early'));
    const config = readConfig({
      K_SINK: sink.url + '/',
      KUBECONFIG: api.env.kubeconfigPath,
      WATCH_NAMESPACE: ns,
      EVENT_SOURCE_TOKEN_FILE: token.path,
    });
    source = await startEventSource({
      config,
      log,
      expressApp: async () => express(),
      registry: createRegistry({ defaultMetrics: false }),
      env: {},
      addProbe: () => {},
      serveDirect: () => {},
    });
    await api.env.waitFor(() => seen('dev.knative.apiserver.resource.add', `${ns}/early`), {
      what: 'add of the RedisCluster that existed before',
    });

    await api.objects.create(cluster('demo'));
    await api.env.waitFor(() => seen('dev.knative.apiserver.resource.add', `${ns}/demo`), { what: 'add of demo' });
    await api.objects.patch(
      {
        apiVersion: API_VERSION_V1BETA1,
        kind: KIND,
        metadata: { name: 'demo', namespace: ns, labels: { team: 'cache' } },
      },
      undefined,
      undefined,
      undefined,
      undefined,
      'application/merge-patch+json' as never,
    );
    await api.env.waitFor(() => seen('dev.knative.apiserver.resource.update', `${ns}/demo`), {
      what: 'update of demo',
    });
    await api.objects.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'demo-config',
        namespace: ns,
        labels: { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE, [LABEL_INSTANCE]: 'demo', [LABEL_CLUSTER]: 'demo' },
      },
      data: { a: 'b' },
    });
    await api.env.waitFor(
      () => received.some((r) => r.subject.includes('/configmaps/demo-config') && r.keys.includes(`${ns}/demo`)),
      { what: 'the child ConfigMap mapped to demo' },
    );
    await api.objects.delete(cluster('demo'));
    await api.env.waitFor(() => seen('dev.knative.apiserver.resource.delete', `${ns}/demo`), {
      what: 'delete of demo',
    });
    // An unlabelled ConfigMap is not watched at all.
    await api.objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stranger', namespace: ns } });
    await api.objects.create(cluster('marker'));
    await api.env.waitFor(() => seen('dev.knative.apiserver.resource.add', `${ns}/marker`), { what: 'add of marker' });
    expect(posted.filter((subject) => subject.includes('stranger'))).to.deep.equal([]);
  });

  it("maps a reference to a user's backup, which has no owner, to the cluster its spec names (read from the API server)", async () => {
    await api.objects.create({
      apiVersion: API_VERSION_V1BETA1,
      kind: 'RedisClusterBackup',
      metadata: { name: 'before-upgrade', namespace: ns },
      spec: {
        clusterName: 'cache',
        storage: { s3: { bucket: 'redis-backups', credentialsSecretRef: { name: 's3-keys' } } },
      },
    } as never);
    const ref = { apiVersion: API_VERSION_V1BETA1, kind: 'RedisClusterBackup', namespace: ns, name: 'before-upgrade' };
    const event = (verb: string) => ({ type: `dev.knative.apiserver.ref.${verb}`, data: ref, extensions: {} });
    const lookup = kubeOwnerLookup(api.env.kubeConfig());
    expect(await toKeys(event('add'), lookup)).to.deep.equal({ keys: [`${ns}/cache`] });
    await api.objects.delete({ apiVersion: API_VERSION_V1BETA1, kind: 'RedisClusterBackup', metadata: ref } as never);
    expect(await toKeys(event('delete'), lookup)).to.have.property('unrelated');
  });

  it('sends a changed password Secret as a reference, which ingest maps to the cluster using it', async () => {
    await api.objects.create({
      ...cluster('pw'),
      spec: { masters: 3, auth: { secretRef: { name: 'pw-secret' } } },
    } as never);
    await api.objects.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pw-secret', namespace: ns },
      stringData: { password: 'first-password' },
    } as never);
    await api.objects.patch(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'pw-secret', namespace: ns },
        stringData: { password: 'second-password' },
      } as never,
      undefined,
      undefined,
      undefined,
      undefined,
      'application/merge-patch+json' as never,
    );
    await api.env.waitFor(() => seen('dev.knative.apiserver.ref.update', `${ns}/pw`), {
      what: 'the Secret update mapped to pw as a reference',
    });
    expect(received.filter((r) => r.subject.includes('/secrets/')).map((r) => r.type.split('.')[3])).to.satisfy(
      (modes: string[]) => modes.every((m) => m === 'ref'),
    );
  });
  it('maps a renewed TLS Secret (spec.tls.secretRef) to the cluster serving it, as a reference', async () => {
    await api.objects.create({
      ...cluster('tl'),
      spec: { masters: 3, tls: { secretRef: { name: 'tl-tls' } } },
    } as never);
    const tlsSecret = (cert: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: 'tl-tls', namespace: ns },
        // The API server checks no PEM; the content only has to change.
        stringData: { 'tls.crt': cert, 'tls.key': 'key', 'ca.crt': 'ca' },
      }) as never;
    await api.objects.create(tlsSecret('first'));
    await api.objects.patch(
      tlsSecret('renewed'),
      undefined,
      undefined,
      undefined,
      undefined,
      'application/merge-patch+json' as never,
    );
    await api.env.waitFor(() => seen('dev.knative.apiserver.ref.update', `${ns}/tl`), {
      what: 'the TLS Secret update mapped to tl as a reference',
    });
  });
});
