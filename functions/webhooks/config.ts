// Settings of the webhooks function, read once from the environment at start-up:
//   WEBHOOK_PORT        HTTPS port (default 9443)
//   WEBHOOK_HOST        interface (default 127.0.0.1; 0.0.0.0 in a pod)
//   WEBHOOK_TLS_CERT    PEM certificate file; its SANs must match how the API server calls
//   WEBHOOK_TLS_KEY     it (IP 127.0.0.1 locally, the Service's DNS in a cluster). Both or
//                       neither: without them the function makes a throwaway CA and
//                       certificate (index.ts) so `npm start` runs anywhere.
//   WEBHOOK_MAX_BODY_BYTES  largest review accepted (default 16 MiB: a list conversion
//                           carries every object of the list)
import { readFileSync } from 'node:fs';
import { ConfigError } from '../start-config.ts';

export interface WebhookConfig {
  readonly port: number;
  readonly host: string;
  /** Absent when neither WEBHOOK_TLS_CERT nor WEBHOOK_TLS_KEY is set. */
  readonly tls: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  readonly maxBodyBytes: number;
}

export function readWebhookConfig(env: Readonly<Record<string, string | undefined>>): WebhookConfig {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    const value = raw === undefined || raw === '' ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      problems.push(`${name} must be an integer in ${min}..${max}, got "${raw}"`);
    return value;
  };
  const file = (name: string) => {
    const path = env[name];
    if (!path) {
      problems.push(`${name} must name a PEM file`);
      return Buffer.alloc(0);
    }
    try {
      return readFileSync(path);
    } catch (error) {
      problems.push(`${name}: cannot read ${path}: ${(error as Error).message}`);
      return Buffer.alloc(0);
    }
  };
  const config = {
    port: int('WEBHOOK_PORT', 9443, 0, 65535),
    host: env.WEBHOOK_HOST || '127.0.0.1',
    tls:
      env.WEBHOOK_TLS_CERT || env.WEBHOOK_TLS_KEY
        ? { cert: file('WEBHOOK_TLS_CERT'), key: file('WEBHOOK_TLS_KEY') }
        : undefined,
    maxBodyBytes: int('WEBHOOK_MAX_BODY_BYTES', 16 * 1024 * 1024, 1024, 256 * 1024 * 1024),
  };
  if (problems.length > 0) throw new ConfigError(`invalid webhook configuration:\n  ${problems.join('\n  ')}`);
  return Object.freeze(config);
}
