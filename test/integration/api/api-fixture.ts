// The RedisCluster API installed on the local environment's real API server: the webhook
// server started in this process (HTTPS on loopback, test certificates), the CRD with its
// conversion webhook pointing at it, and the ValidatingWebhookConfiguration. Removed by stop().
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, AdmissionregistrationV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { makeWebhookCerts, type WebhookCerts } from '../../../infra/webhooks/certs.ts';
import { startWebhookServer } from '../../../functions/webhooks/index.ts';
import type { HttpsListening } from '../../../functions/webhooks/server.ts';
import { CRD_NAME } from '../../../shared/core/api/group.ts';
import { redisClusterCrd } from '../../../shared/core/api/crd.ts';
import { validatingWebhookConfiguration } from '../../../shared/core/api/webhook-registration.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';
import { freePort } from '../../support/redis-server.ts';
import { requireCommand } from '../../support/prerequisites.ts';

export interface InstalledApi {
  env: LocalEnvironment;
  webhook: HttpsListening;
  certs: WebhookCerts;
  objects: KubernetesObjectApi;
  /** Creates a namespace for one test file; deleted by stop(). */
  namespace(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function installApi(configurationName: string): Promise<InstalledApi> {
  requireCommand('openssl');
  const env = await localEnvironment();
  const dir = await mkdtemp(join(tmpdir(), 'knredis-webhook-'));
  const certs = await makeWebhookCerts(dir);
  const log = createLogger({ level: 'warn', name: 'webhooks-test' });
  const webhook = await startWebhookServer({
    host: '127.0.0.1', port: await freePort(), maxBodyBytes: 16 * 1024 * 1024,
    tls: { cert: await readFile(certs.cert), key: await readFile(certs.key) },
  }, log);
  const kc = env.kubeConfig();
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  const admission = kc.makeApiClient(AdmissionregistrationV1Api);
  const target = { url: webhook.url, caBundle: certs.caBundle };
  const namespaces: string[] = [];
  const stop = async () => {
    for (const ns of namespaces) await objects.delete({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }).catch(() => {});
    await admission.deleteValidatingWebhookConfiguration({ name: configurationName }).catch(() => {});
    await webhook.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // Applied with kubectl: client-node's typed serializer drops JSONSchemaProps' `enum`,
    // `default` and `x-kubernetes-validations` (it expects its own property names). The CRD
    // is cluster-wide and shared by the test files of this process: apply, not create.
    await apply(env, redisClusterCrd(target));
    await env.waitFor(async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: CRD_NAME });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    }, { what: `CRD ${CRD_NAME} Established` });
    await apply(env, validatingWebhookConfiguration(target, configurationName));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    env, webhook, certs, objects, stop,
    async namespace(name) {
      await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      namespaces.push(name);
      return name;
    },
  };
}

async function apply(env: LocalEnvironment, obj: object): Promise<void> {
  await env.kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager', 'knredis-api-tests', '-f', '-'], { input: JSON.stringify(obj) });
}
