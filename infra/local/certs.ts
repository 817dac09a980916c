// Certificates of one environment, made with the openssl CLI: a CA, the API server's serving
// certificate, one client certificate per identity, and the service-account signing key pair.
// Kept across `down`/`up` of the same environment (they do not depend on ports); the API
// server's is made again when its Service range moved (another address prefix).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface KeyPair {
  cert: string;
  key: string;
}

export interface Certs {
  dir: string;
  ca: KeyPair;
  apiserver: KeyPair;
  admin: KeyPair;
  controllerManager: KeyPair;
  scheduler: KeyPair;
  kubelet: KeyPair;
  /** The API server's client identity towards aggregated APIs (request-header authentication). */
  frontProxy: KeyPair;
  /** Service-account token signing key (private) and its public half. */
  serviceAccount: { key: string; pub: string };
}

/** Client identities: CN is the user, O the group (RBAC binds the built-in users by name). */
const clients = {
  admin: '/O=system:masters/CN=knredis-admin',
  controllerManager: '/CN=system:kube-controller-manager',
  scheduler: '/CN=system:kube-scheduler',
  // One process runs every node, so it cannot be a single system:node:<name>.
  kubelet: '/O=system:masters/CN=knredis-kubelet',
  frontProxy: '/CN=front-proxy-client',
} as const;

function pair(dir: string, name: string): KeyPair {
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}

export function certPaths(dir: string): Certs {
  return {
    dir,
    ca: pair(dir, 'ca'),
    apiserver: pair(dir, 'apiserver'),
    admin: pair(dir, 'admin'),
    controllerManager: pair(dir, 'controller-manager'),
    scheduler: pair(dir, 'scheduler'),
    kubelet: pair(dir, 'kubelet'),
    frontProxy: pair(dir, 'front-proxy-client'),
    serviceAccount: { key: join(dir, 'sa.key'), pub: join(dir, 'sa.pub') },
  };
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim() || String(error)}`, { cause: error });
  }
}

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function signed(ca: KeyPair, out: KeyPair, subject: string, usage: string, san?: string): Promise<void> {
  await openssl([
    'req',
    '-x509',
    '-new',
    ...ecKey,
    '-keyout',
    out.key,
    '-out',
    out.cert,
    '-days',
    '825',
    '-subj',
    subject,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    '-addext',
    `extendedKeyUsage=${usage}`,
    ...(san ? ['-addext', `subjectAltName=${san}`] : []),
  ]);
}

/** The API server's names: loopback, and the `kubernetes` Service's ClusterIP and DNS names,
 * which in-cluster clients use. */
export function apiServerSan(serviceIp: string): string {
  const names = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  return ['IP:127.0.0.1', 'DNS:localhost', `IP:${serviceIp}`, ...names.map((n) => `DNS:${n}`)].join(',');
}

/** Makes every certificate that is missing in dir (all of them on first use), and the API
 * server's again when it does not name `serviceIp`, the `kubernetes` Service's ClusterIP. */
export async function ensureCerts(dir: string, serviceIp: string): Promise<Certs> {
  const c = certPaths(dir);
  const files = [c.ca, c.apiserver, c.admin, c.controllerManager, c.scheduler, c.kubelet, c.frontProxy].flatMap((p) => [
    p.cert,
    p.key,
  ]);
  if ([...files, c.serviceAccount.key, c.serviceAccount.pub].every((f) => existsSync(f))) {
    const { stdout } = await run('openssl', ['x509', '-in', c.apiserver.cert, '-noout', '-ext', 'subjectAltName']);
    if (!stdout.split(/,?\s+/).includes(`Address:${serviceIp}`))
      await signed(c.ca, c.apiserver, '/CN=kube-apiserver', 'serverAuth', apiServerSan(serviceIp));
    return c;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await openssl([
    'req',
    '-x509',
    '-new',
    ...ecKey,
    '-keyout',
    c.ca.key,
    '-out',
    c.ca.cert,
    '-days',
    '3650',
    '-subj',
    '/CN=knredis-local-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await Promise.all([
    signed(c.ca, c.apiserver, '/CN=kube-apiserver', 'serverAuth', apiServerSan(serviceIp)),
    ...Object.entries(clients).map(([id, subject]) =>
      signed(c.ca, c[id as keyof typeof clients], subject, 'clientAuth'),
    ),
    (async () => {
      await openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', c.serviceAccount.key]);
      await openssl(['pkey', '-in', c.serviceAccount.key, '-pubout', '-out', c.serviceAccount.pub]);
    })(),
  ]);
  return c;
}
