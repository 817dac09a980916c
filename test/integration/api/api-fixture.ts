// The RedisCluster API installed on the local environment's real API server: the webhook
// server started in this process (HTTPS on loopback, test certificates), the CRD with its
// conversion webhook pointing at it, and the ValidatingWebhookConfiguration. Removed by stop().
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { makeWebhookCerts, type WebhookCerts } from '../../../infra/webhooks/certs.ts';
import { kubeClusterReader } from '../../../functions/kube.ts';
import { startWebhookServer } from '../../../functions/webhooks/index.ts';
import { storageClassReader } from '../../../functions/webhooks/storage-class.ts';
import type { HttpsListening } from '../../../functions/webhooks/server.ts';
import { installRedisClusterApi, uninstallValidatingWebhook } from '../../../infra/webhooks/install.ts';
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
  const webhook = await startWebhookServer(
    {
      host: '127.0.0.1',
      port: await freePort(),
      maxBodyBytes: 16 * 1024 * 1024,
      tls: { cert: await readFile(certs.cert), key: await readFile(certs.key) },
    },
    log,
    kubeClusterReader(env.kubeConfig()),
    storageClassReader(env.kubeConfig()),
  );
  const objects = KubernetesObjectApi.makeApiClient(env.kubeConfig());
  const kubectl = (args: string[], options?: { input?: string }) => env.kubectl(args, options);
  const namespaces: string[] = [];
  const stop = async () => {
    for (const ns of namespaces)
      await objects.delete({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }).catch(() => {});
    await uninstallValidatingWebhook(kubectl, configurationName).catch(() => {});
    await webhook.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // The CRD is cluster-wide and shared by the test files of this process: applied, not created.
    await installRedisClusterApi(kubectl, { url: webhook.url, caBundle: certs.caBundle }, configurationName);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    env,
    webhook,
    certs,
    objects,
    stop,
    async namespace(name) {
      await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      namespaces.push(name);
      return name;
    },
  };
}
