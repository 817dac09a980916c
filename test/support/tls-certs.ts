// Certificates made with openssl the way cert-manager's CA Issuer makes them: one CA, and
// server certificates it signs for the names the nodes are reached by. A renewal is another
// certificate from the same CA. Files in a temporary directory removed by cleanup().
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireCommand } from './prerequisites.ts';

export interface ServerCertificate {
  readonly cert: string;
  readonly key: string;
}

export interface TestCa {
  readonly ca: string;
  /** A server (and client) certificate for these DNS names, plus 127.0.0.1; a new key each time. */
  issue(dnsNames: readonly string[]): ServerCertificate;
  cleanup(): void;
}

export function testCa(subject = 'knredis test CA'): TestCa {
  requireCommand('openssl', 'Debian package openssl');
  const dir = mkdtempSync(join(tmpdir(), 'knredis-tls-'));
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt'].concat([
      '-days',
      '2',
      '-subj',
      `/CN=${subject}`,
    ]),
  );
  let serial = 0;
  return {
    ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    issue(dnsNames) {
      const n = ++serial;
      const san = [...dnsNames.map((d) => `DNS:${d}`), 'IP:127.0.0.1'].join(',');
      writeFileSync(
        join(dir, `ext${n}.cnf`),
        `subjectAltName=${san}\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n`,
      );
      openssl([
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `s${n}.key`,
        '-out',
        `s${n}.csr`,
        '-subj',
        `/CN=${dnsNames[0]}`,
      ]);
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `s${n}.csr`,
          '-CA',
          'ca.crt',
          '-CAkey',
          'ca.key',
          '-set_serial',
          String(1000 + n),
        ].concat(['-days', '1', '-out', `s${n}.crt`, '-extfile', `ext${n}.cnf`]),
      );
      return { cert: readFileSync(join(dir, `s${n}.crt`), 'utf8'), key: readFileSync(join(dir, `s${n}.key`), 'utf8') };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The kubernetes.io/tls Secret cert-manager writes: tls.crt, tls.key and ca.crt. */
export function tlsSecret(name: string, namespace: string, ca: string, server: ServerCertificate): object {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name, namespace },
    data: { 'tls.crt': b64(server.cert), 'tls.key': b64(server.key), 'ca.crt': b64(ca) },
  };
}
