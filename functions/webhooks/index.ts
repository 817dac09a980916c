// Wiring of the webhooks function: its own HTTPS server (the API server calls webhooks over
// TLS only), separate from the shared HTTP app, which gets a readiness probe for it, and a
// Kubernetes client that reads the RedisCluster behind a review of its scale subresource.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartFunction } from '../function-context.ts';
import type { Logger } from '../../shared/io/log.ts';
import { makeWebhookCerts } from '../../infra/webhooks/certs.ts';
import { kubeClusterReader, loadKubeConfig } from '../kube.ts';
import { webhookApp, type WebhookAppOptions } from './app.ts';
import { readWebhookConfig, type WebhookConfig } from './config.ts';
import { listenHttps, type HttpsListening } from './server.ts';
import { storageClassReader } from './storage-class.ts';

export interface WebhookServerSettings extends Omit<WebhookConfig, 'tls'> {
  readonly tls: NonNullable<WebhookConfig['tls']>;
}

export async function startWebhookServer(
  config: WebhookServerSettings,
  log: Logger,
  readCluster: WebhookAppOptions['readCluster'],
  readStorageClass?: WebhookAppOptions['readStorageClass'],
): Promise<HttpsListening> {
  const listening = await listenHttps(
    webhookApp({
      maxBodyBytes: config.maxBodyBytes,
      log,
      readCluster,
      ...(readStorageClass ? { readStorageClass } : {}),
    }),
    config.tls,
    config.port,
    config.host,
  );
  log.info({ url: listening.url }, 'webhooks listening');
  return listening;
}

/** A throwaway certificate for 127.0.0.1 when none is configured; its CA's path is logged. */
async function generatedTls(log: Logger): Promise<{ tls: WebhookServerSettings['tls']; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'knredis-webhooks-'));
  const certs = await makeWebhookCerts(dir);
  log.warn(
    { ca: certs.caCert },
    'WEBHOOK_TLS_CERT/KEY not set: serving a generated certificate; the API server must trust this CA (caBundle)',
  );
  return { tls: { cert: await readFile(certs.cert), key: await readFile(certs.key) }, dir };
}

export const start: StartFunction = async ({ config: common, log, addProbe, env }) => {
  const config = readWebhookConfig(env);
  const kc = loadKubeConfig(common.kubeconfig, 'knredis-webhooks');
  const readCluster = kubeClusterReader(kc);
  const generated = config.tls ? undefined : await generatedTls(log);
  const listening = await startWebhookServer(
    { ...config, tls: config.tls ?? generated!.tls },
    log,
    readCluster,
    storageClassReader(kc),
  );
  addProbe({ name: 'webhooks-https', check: async () => listening.server.listening });
  return {
    async close() {
      await listening.close();
      if (generated) await rm(generated.dir, { recursive: true, force: true });
    },
  };
};
