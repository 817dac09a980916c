// infra/overlays/knative applied for real to the local Kubernetes with Knative's own CRDs and
// webhooks (eventing and serving v0.50.0, infra/local/knative/): Knative's webhooks admit and
// default the Knative Services and the ApiServerSource, and refuse broken variants with their
// own messages. Only admission is proven: no Knative controller, activator or queue-proxy runs
// here, so the Services never get Ready.
import { expect } from 'chai';
import { installKnative } from '../../infra/local/knative/install.ts';
import { localEnvironment, type LocalEnvironment } from '../support/local-env.ts';
import { buildOverlay, find, type K8sObject } from '../integration/infra/overlays.ts';

// Left out of the apply: cert-manager does not run here, and the CRD and the validating
// webhook would send the RedisCluster API of the operator under test to webhooks that do not
// run here (the e2e stacks install their own).
const notApplied = new Set(['Certificate', 'Issuer', 'CustomResourceDefinition', 'ValidatingWebhookConfiguration']);

describe("infra/overlays/knative against Knative's own webhooks (local Kubernetes)", function () {
  this.timeout(300_000);
  let env: LocalEnvironment;
  let applied: K8sObject[];
  const copy = <T>(o: T): T => structuredClone(o);

  before(async function () {
    env = await localEnvironment();
    await installKnative(env.name);
    applied = (await buildOverlay(env.kubectlPath, 'knative')).objects.filter((o) => !notApplied.has(o.kind));
  });
  after(async function () {
    if (applied)
      await env
        .kubectl(['delete', '--ignore-not-found', '--wait=false', '-f', '-'], {
          input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: applied }),
        })
        .catch(() => {});
  });

  const apply = (objects: K8sObject[], ...flags: string[]) =>
    env.kubectl(['apply', '--server-side', '--field-manager=knredis-test', ...flags, '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
    });
  const get = async (kind: string, name: string) =>
    JSON.parse(await env.kubectl(['get', kind, name, '-n', 'knredis-system', '-o', 'json'])) as K8sObject & {
      spec: Record<string, unknown>;
    };

  it("is applied (not a dry run) and admitted, the Knative Services defaulted by Serving's webhook", async function () {
    await apply(applied);
    for (const name of ['knredis-ingest', 'knredis-reconcile', 'knredis-dashboard']) {
      const ksvc = await get('services.serving.knative.dev', name);
      // What only Serving's defaulting webhook writes.
      expect(ksvc.spec.traffic, name).to.deep.equal([{ latestRevision: true, percent: 100 }]);
      expect(ksvc.metadata.annotations?.['serving.knative.dev/creator'], name).to.be.a('string');
    }
    const source = await get('apiserversources.sources.knative.dev', 'knredis');
    expect(source.spec.mode).to.equal('Resource');
  });

  const ingest = () => find(applied, 'Service', 'knredis-ingest')!;
  const source = () => find(applied, 'ApiServerSource', 'knredis')!;
  type Spec = {
    template: { metadata: { annotations: Record<string, string> }; spec: { containers: Record<string, unknown>[] } };
  };
  const withSpec = (o: K8sObject, change: (spec: Spec & Record<string, unknown>) => void) => {
    const bad = copy(o);
    change(bad.spec as Spec & Record<string, unknown>);
    return bad;
  };
  // [variant, object, Knative's message]
  const refused: [string, () => K8sObject, string][] = [
    [
      'min-scale above max-scale',
      () =>
        withSpec(ingest(), (s) =>
          Object.assign(s.template.metadata.annotations, {
            'autoscaling.knative.dev/min-scale': '5',
            'autoscaling.knative.dev/max-scale': '2',
          }),
        ),
      'admission webhook "validation.webhook.serving.knative.dev" denied the request: validation failed: max-scale=2 is less than min-scale=5',
    ],
    [
      "a port Knative reserves (8012, the queue-proxy's)",
      () => withSpec(ingest(), (s) => (s.template.spec.containers[0]!.ports = [{ containerPort: 8012 }])),
      'invalid value: 8012 is a reserved port: spec.template.spec.containers[0].ports.containerPort',
    ],
    [
      'no image',
      () => withSpec(ingest(), (s) => delete s.template.spec.containers[0]!.image),
      'missing field(s): spec.template.spec.containers[0].image',
    ],
    [
      'an ApiServerSource without a sink',
      () => withSpec(source(), (s) => delete s.sink),
      'admission webhook "validation.webhook.eventing.knative.dev" denied the request: validation failed: expected at least one, got none: spec.sink.ref, spec.sink.uri',
    ],
    [
      'an ApiServerSource with a bad mode',
      () => withSpec(source(), (s) => (s.mode = 'Everything')),
      'invalid value: Everything: spec.mode',
    ],
  ];
  for (const [variant, object, message] of refused) {
    it(`is refused by Knative's webhook with its own message: ${variant}`, async function () {
      const error = await apply([object()], '--dry-run=server').then(
        () => 'admitted',
        (e: Error) => e.message,
      );
      expect(error).to.contain(message);
    });
  }
});
