// A CA and a serving certificate for the webhooks, made with the openssl CLI, for the local
// environment and for tests. The API server there runs as a local process and calls the
// webhooks at https://127.0.0.1:PORT, so the certificate's SANs hold that IP (and the
// in-cluster Service names, so the same files also work behind the Service).
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface WebhookCerts {
  /** PEM files. */
  caCert: string;
  cert: string;
  key: string;
  /** The CA, base64 of its PEM: the caBundle of webhook clientConfigs. */
  caBundle: string;
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (error) {
    throw new Error(`openssl ${args[0]} failed: ${(error as { stderr?: string }).stderr?.trim() || String(error)}`, {
      cause: error,
    });
  }
}

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export async function makeWebhookCerts(
  dir: string,
  hosts: { ips?: string[]; dns?: string[] } = {},
): Promise<WebhookCerts> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const caKey = join(dir, 'webhook-ca.key');
  const caCert = join(dir, 'webhook-ca.crt');
  const cert = join(dir, 'webhook.crt');
  const key = join(dir, 'webhook.key');
  await openssl([
    'req',
    '-x509',
    '-new',
    ...ecKey,
    '-keyout',
    caKey,
    '-out',
    caCert,
    '-days',
    '3650',
    '-subj',
    '/CN=knredis-webhooks-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const ips = hosts.ips ?? ['127.0.0.1'];
  const dns = hosts.dns ?? [
    'localhost',
    'knredis-webhooks.knredis-system.svc',
    'knredis-webhooks.knredis-system.svc.cluster.local',
  ];
  const san = [...ips.map((ip) => `IP:${ip}`), ...dns.map((d) => `DNS:${d}`)].join(',');
  await openssl([
    'req',
    '-x509',
    '-new',
    ...ecKey,
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '825',
    '-subj',
    '/CN=knredis-webhooks',
    '-CA',
    caCert,
    '-CAkey',
    caKey,
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    '-addext',
    'extendedKeyUsage=serverAuth',
    '-addext',
    `subjectAltName=${san}`,
  ]);
  return { caCert, cert, key, caBundle: (await readFile(caCert)).toString('base64') };
}
