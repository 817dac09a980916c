// Wiring of the webhooks function: its own HTTPS server (the API server calls webhooks over
// TLS only), separate from the shared HTTP app, which gets a readiness probe for it.
import type { StartFunction } from '../function-context.ts';
import type { Logger } from '../../shared/io/log.ts';
import { webhookApp } from './app.ts';
import { readWebhookConfig, type WebhookConfig } from './config.ts';
import { listenHttps, type HttpsListening } from './server.ts';

export async function startWebhookServer(config: WebhookConfig, log: Logger): Promise<HttpsListening> {
  const listening = await listenHttps(webhookApp({ maxBodyBytes: config.maxBodyBytes, log }), config.tls, config.port, config.host);
  log.info({ url: listening.url }, 'webhooks listening');
  return listening;
}

export const start: StartFunction = async ({ log, addProbe }) => {
  const listening = await startWebhookServer(readWebhookConfig(process.env), log.child({ fn: 'webhooks' }));
  addProbe({ name: 'webhooks-https', check: async () => listening.server.listening });
  return { close: () => listening.close() };
};
