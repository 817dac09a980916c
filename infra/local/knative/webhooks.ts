// Knative on the local environment: the CRDs, ConfigMaps and webhook configurations of
// Eventing and Serving from their release's config/core (as the module zips ship them), and
// both webhooks running as processes of the environment.
//
// Knative's webhooks must be reached through clientConfig.service (they refuse a URL), and
// EndpointSlices refuse 127.x addresses. So each webhook gets a selector-less Service with a
// fixed clusterIP in the environment's loopback Service range (loopbackServiceCidr) and its
// own port, on which the webhook process listens (on every interface): the API server dials
// clusterIP:port. Each takes a leader lease in its system namespace, signs its own serving
// certificate into its Secret and writes the caBundle into its configurations.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Progress } from '../binaries.ts';
import type { Probe } from '../readiness.ts';
import type { Component, EnvState } from '../state.ts';
import type { KnativeBinary, KnativeBuild } from './binaries.ts';

type WebhookComponent = Extract<Component, 'eventing-webhook' | 'serving-webhook'>;

export interface KnativeWebhook {
  readonly component: WebhookComponent;
  readonly part: 'eventing' | 'serving';
  readonly binary: KnativeBinary;
  readonly namespace: string;
  /** Its Service (and WEBHOOK_NAME). */
  readonly service: string;
  /** Host part of its clusterIP in the Service range. */
  readonly host: number;
  /** Folders of config/core applied, in order (CRDs before the configurations naming them). */
  readonly folders: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export const knativeWebhooks: readonly KnativeWebhook[] = [
  {
    component: 'eventing-webhook',
    part: 'eventing',
    binary: 'eventing-webhook',
    namespace: 'knative-eventing',
    service: 'eventing-webhook',
    host: 10,
    folders: ['100-namespace.yaml', 'configmaps', 'resources', 'webhooks'],
    // SinkBinding's webhook mutates the pods of opted-in namespaces only (the default,
    // exclusion, would put it in front of every pod of every test).
    env: { METRICS_DOMAIN: 'knative.dev/eventing', SINK_BINDING_SELECTION_MODE: 'inclusion' },
  },
  {
    component: 'serving-webhook',
    part: 'serving',
    binary: 'serving-webhook',
    namespace: 'knative-serving',
    service: 'webhook',
    host: 11,
    folders: ['100-namespace.yaml', 'configmaps', '300-resources', 'webhooks'],
    env: { CONFIG_OBSERVABILITY_NAME: 'config-observability' },
  },
];

export function clusterIpOf(serviceCidr: string, host: number): string {
  return serviceCidr.replace(/\.0\/\d+$/, `.${host}`);
}

type Manifest = {
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
};

/** Every object of the webhook's folders, with its Services' port set where they are named. */
export function webhookManifests(build: KnativeBuild, webhook: KnativeWebhook, port: number): Manifest[] {
  const root = build.config(webhook.part);
  const files = webhook.folders.flatMap((f) =>
    f.endsWith('.yaml')
      ? [join(root, f)]
      : readdirSync(join(root, f))
          .filter((n) => n.endsWith('.yaml'))
          .sort()
          .map((n) => join(root, f, n)),
  );
  const objects = files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8'))
      .map((d) => d.toJS() as Manifest | null)
      .filter((o): o is Manifest => !!o?.kind),
  );
  return objects.map((o) => withPort(o, webhook, port));
}

/** clientConfig.service of `webhook` anywhere in the object (webhook configurations, CRD
 * conversion) gets the port the process listens on. */
function withPort<T>(value: T, webhook: KnativeWebhook, port: number): T {
  if (Array.isArray(value)) return value.map((v) => withPort(v, webhook, port)) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withPort(v, webhook, port);
  const service = out.service as { name?: string; namespace?: string } | undefined;
  if ('service' in out && service?.name === webhook.service && service.namespace === webhook.namespace)
    out.service = { ...service, port };
  return out as T;
}

/** The selector-less Service whose clusterIP the webhook answers on. */
export function webhookService(webhook: KnativeWebhook, clusterIP: string, port: number): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: webhook.service,
      namespace: webhook.namespace,
      labels: { 'app.kubernetes.io/part-of': 'knredis-local' },
    },
    spec: { type: 'ClusterIP', clusterIP, ports: [{ name: 'https-webhook', port, targetPort: port }] },
  };
}

/** Environment of the webhook process (what its Deployment sets from the downward API). */
export function webhookEnv(webhook: KnativeWebhook, port: number, profilingPort: number): Record<string, string> {
  return {
    SYSTEM_NAMESPACE: webhook.namespace,
    POD_NAME: `${webhook.service}-local`,
    CONFIG_LOGGING_NAME: 'config-logging',
    WEBHOOK_NAME: webhook.service,
    WEBHOOK_PORT: String(port),
    PROFILING_PORT: String(profilingPort),
    ...webhook.env,
  };
}

export function webhookProbe(state: EnvState, component: WebhookComponent): Omit<Probe, 'pid' | 'match' | 'log'> {
  const at = state.knative?.webhooks[component];
  if (!at) throw new Error(`${component} is not installed in '${state.name}'`);
  return {
    what: component,
    url: `https://${at.clusterIP}:${at.port}/`,
    tls: {},
    // What Knative's network.IsKubeletProbe recognises.
    headers: { 'K-Kubelet-Probe': 'webhook', 'User-Agent': 'kube-probe/1.37' },
  };
}

export type { Progress };
