import { expect } from 'chai';
import { readWebhookConfig } from '../../../functions/webhooks/config.ts';
import { ConfigError } from '../../../functions/start-config.ts';

describe('webhooks/config', () => {
  it('defaults to loopback port 9443, 16 MiB bodies and a generated certificate', () => {
    expect(readWebhookConfig({})).to.deep.equal({
      port: 9443,
      host: '127.0.0.1',
      tls: undefined,
      maxBodyBytes: 16 * 1024 * 1024,
    });
  });

  it('reports every problem at once', () => {
    expect(() =>
      readWebhookConfig({
        WEBHOOK_PORT: '70000',
        WEBHOOK_TLS_CERT: '/nonexistent/cert.pem',
        WEBHOOK_MAX_BODY_BYTES: 'lots',
      }),
    )
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(
        /WEBHOOK_PORT must be an integer in 0\.\.65535, got "70000"[\s\S]*WEBHOOK_TLS_CERT: cannot read \/nonexistent\/cert\.pem[\s\S]*WEBHOOK_TLS_KEY must name a PEM file[\s\S]*WEBHOOK_MAX_BODY_BYTES/,
      );
  });
});
