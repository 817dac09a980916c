// The deployable manifests: every overlay builds with kubectl kustomize; the plain-Kubernetes
// one is accepted by the real API server (server-side dry run: schemas, defaults, admission);
// the Knative one (its CRDs are not installed locally) is checked for what knredis relies on.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readConfig } from '../../../functions/start-config.ts';
import { watchedResources } from '../../../functions/event-source/watched.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';
import { buildOverlay, find, NAMESPACE, podSpecOf, runtimes, type K8sObject } from './overlays.ts';

const source = (path: string) => readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');
// Kinds whose CRDs the local API server does not have: checked for structure only.
const certManager = new Set(['Issuer', 'Certificate']);
const image = 'knredis:0.1.0';

describe('infra/overlays', function () {
  this.timeout(180_000);
  let env: LocalEnvironment;
  const built: Record<string, K8sObject[]> = {};

  before(async function () {
    env = await localEnvironment();
    for (const runtime of runtimes) built[runtime] = (await buildOverlay(env.kubectlPath, runtime)).objects;
  });

  for (const runtime of runtimes) {
    it(`builds ${runtime} into named objects, all in ${NAMESPACE} when namespaced, functions on the knredis image`, function () {
      const objects = built[runtime]!;
      expect(objects.length).to.be.greaterThan(10);
      for (const o of objects) {
        expect(o.apiVersion, JSON.stringify(o).slice(0, 200)).to.be.a('string').and.not.equal('');
        expect(o.kind).to.be.a('string').and.not.equal('');
        expect(o.metadata?.name).to.be.a('string').and.not.equal('');
        if (o.metadata.namespace !== undefined) expect(o.metadata.namespace).to.equal(NAMESPACE);
      }
      const ids = objects.map((o) => `${o.apiVersion}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
      expect(new Set(ids).size, 'no object twice').to.equal(ids.length);
      const accounts = new Set(objects.filter((o) => o.kind === 'ServiceAccount').map((o) => o.metadata.name));
      for (const o of objects.filter(
        (x) => x.kind === 'Deployment' || (x.kind === 'Service' && x.apiVersion.startsWith('serving.knative.dev')),
      )) {
        const pod = podSpecOf(o)!;
        expect(accounts, `${o.metadata.name}'s ServiceAccount`).to.include(pod.serviceAccountName);
        for (const c of pod.containers) {
          expect(c.image, o.metadata.name).to.equal(image);
          expect(
            c.args?.every((a) =>
              existsSync(fileURLToPath(new URL(`../../../functions/${a}/index.ts`, import.meta.url))),
            ),
            `${o.metadata.name} runs functions`,
          ).to.equal(true);
          expect(c.envFrom?.[0]?.configMapRef?.name).to.equal('knredis-config');
        }
      }
    });
  }

  it('configures the functions with variables they read, and a valid configuration', function () {
    const config = find(built.kubernetes!, 'ConfigMap', 'knredis-config')!.data as Record<string, string>;
    const read = source('functions/start-config.ts');
    for (const key of Object.keys(config))
      expect(read, `${key} is read by functions/start-config.ts`).to.match(new RegExp(`['.]${key}\\b`));
    const parsed = readConfig(config);
    expect(parsed.host).to.equal('0.0.0.0');
    expect(parsed.queueRedis).to.deep.equal({
      mode: 'single',
      url: 'redis://knredis-queue-redis.knredis-system.svc.cluster.local:6379',
    });
    const webhooks = podSpecOf(find(built.kubernetes!, 'Deployment', 'knredis-webhooks')!)!.containers[0]!.env!.map(
      (e) => e.name,
    );
    const webhookConfig = source('functions/webhooks/config.ts');
    for (const name of webhooks)
      expect(webhookConfig, `${name} is read by functions/webhooks/config.ts`).to.match(new RegExp(`['.]${name}\\b`));
  });

  it('is accepted by the API server (server-side dry run of the plain-Kubernetes overlay)', async function () {
    const objects = built.kubernetes!.filter((o) => !certManager.has(o.kind));
    const created = !(await env.kubectl(['get', 'namespace', NAMESPACE, '--ignore-not-found', '-o', 'name'])).trim();
    // Namespaced objects need their namespace to exist, even in a dry run.
    if (created) await env.kubectl(['create', 'namespace', NAMESPACE]);
    try {
      // The field manager of infra/webhooks/install.ts: a CRD the tests installed with a
      // conversion URL is then replaced as the operator's own apply would, not merged with it.
      const out = await env.kubectl(
        ['apply', '--server-side', '--force-conflicts', '--field-manager', 'knredis', '--dry-run=server', '-f', '-'],
        { input: objects.map((o) => JSON.stringify(o)).join('\n') },
      );
      expect(out.trim().split('\n')).to.have.length(objects.length);
      expect(out).to.contain('deployment.apps/knredis-reconcile serverside-applied (server dry run)');
    } finally {
      if (created) await env.kubectl(['delete', 'namespace', NAMESPACE, '--timeout=90s'], { timeoutMs: 120_000 }); // gone before the next file needs it
    }
  });

  it('runs the webhooks behind the Service the CRD and the validating webhook call, with the cert-manager Secret', function () {
    for (const runtime of runtimes) {
      const objects = built[runtime]!;
      const service = find(objects, 'Service', 'knredis-webhooks')!;
      const deployment = find(objects, 'Deployment', 'knredis-webhooks')!;
      const selector = (service.spec as { selector: Record<string, string> }).selector;
      expect(
        (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels,
      ).to.include(selector);
      const crd = find(objects, 'CustomResourceDefinition', 'redisclusters.cache.redis.io')!;
      const conversion = (
        crd.spec as { conversion: { webhook: { clientConfig: { service: Record<string, unknown> } } } }
      ).conversion;
      expect(conversion.webhook.clientConfig.service).to.include({ namespace: NAMESPACE, name: 'knredis-webhooks' });
      const validating = find(objects, 'ValidatingWebhookConfiguration', 'knredis-redisclusters')!;
      expect(
        (validating.webhooks as { clientConfig: { service: Record<string, unknown> } }[])[0]!.clientConfig.service,
      ).to.include({ namespace: NAMESPACE, name: 'knredis-webhooks' });
      const certificate = find(objects, 'Certificate', 'knredis-webhooks')!;
      const volumes = (deployment.spec as { template: { spec: { volumes: { secret?: { secretName: string } }[] } } })
        .template.spec.volumes;
      expect(volumes.map((v) => v.secret?.secretName)).to.include(
        (certificate.spec as { secretName: string }).secretName,
      );
    }
  });

  it('keeps one reconcile worker up in Knative (it pulls from the queue; no request would wake it)', function () {
    const reconcile = find(built.knative!, 'Service', 'knredis-reconcile')!;
    const annotations = (reconcile.spec as { template: { metadata: { annotations: Record<string, string> } } }).template
      .metadata.annotations;
    expect(Number(annotations['autoscaling.knative.dev/min-scale'])).to.be.at.least(1);
    expect(reconcile.apiVersion).to.equal('serving.knative.dev/v1');
  });

  it('points the ApiServerSource at ingest, in resource mode, watching RedisClusters, their backups and the labelled children the event source watches (no Secrets)', function () {
    const objects = built.knative!;
    const [src] = objects.filter((o) => o.kind === 'ApiServerSource');
    expect(src!.apiVersion).to.equal('sources.knative.dev/v1');
    const spec = src!.spec as {
      mode: string;
      serviceAccountName: string;
      resources: { apiVersion: string; kind: string; selector?: { matchLabels: Record<string, string> } }[];
      sink: { ref: { apiVersion: string; kind: string; name: string } };
    };
    expect(spec.mode).to.equal('Resource');
    expect(spec.sink.ref).to.include({ apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: 'knredis-ingest' });
    expect(find(objects, 'Service', 'knredis-ingest')!.apiVersion).to.equal('serving.knative.dev/v1');
    const watched = spec.resources.map((r) => `${r.apiVersion}/${r.kind}`).sort();
    const builtIn = watchedResources()
      .filter((r) => r.kind !== 'Secret')
      .map((r) => `${r.apiVersion}/${r.kind}`)
      .sort();
    expect(watched).to.deep.equal(builtIn);
    expect(watched).to.include('cache.redis.io/v1beta1/RedisCluster');
    expect(watched).to.include('cache.redis.io/v1beta1/RedisClusterBackup');
    for (const r of spec.resources.filter((x) => x.kind !== 'RedisCluster' && x.kind !== 'RedisClusterBackup'))
      expect(r.selector?.matchLabels).to.deep.equal({ 'app.kubernetes.io/managed-by': 'knredis' });
    expect(find(objects, 'ClusterRoleBinding', spec.serviceAccountName)).to.not.equal(undefined);
  });

  it('runs the built-in event source only without Knative, posting to the ingest Service', function () {
    expect(find(built.knative!, 'Deployment', 'knredis-event-source')).to.equal(undefined);
    const deployment = find(built.kubernetes!, 'Deployment', 'knredis-event-source')!;
    const env = (podSpecOf(deployment)!.containers[0]!.env ?? []) as { name: string; value?: string }[];
    const sink = new URL(env.find((e) => e.name === 'K_SINK')!.value!);
    expect(sink.hostname).to.equal(`knredis-ingest.${NAMESPACE}.svc.cluster.local`);
    expect(find(built.kubernetes!, 'Service', 'knredis-ingest')!.apiVersion).to.equal('v1');
  });
});
