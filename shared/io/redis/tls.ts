// The TLS side of the operator's Redis connections: what a node serves (its certificate's
// fingerprint, from a handshake that sends nothing), and the live reload of a renewed
// certificate. Only public material is handled here: the CA and certificates, never a key.
import { connect, type ConnectionOptions } from 'node:tls';
import type { Address } from '../../core/cluster/topology.ts';
import type { ServedCertificate } from '../../core/reconcile/tls-reload.ts';
import { command, type NodePool } from './connection.ts';

const TLS_FILES = ['tls-cert-file', 'tls-key-file', 'tls-ca-cert-file'] as const;

/** The sha256 fingerprint of the certificate a node serves now, or undefined when unreachable. */
export function servedFingerprint(
  address: Address,
  tls: ConnectionOptions,
  timeoutMs = 3_000,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    // Not verified here on purpose: this only reads which certificate is served (a node with
    // a certificate from another CA must still be seen, to be reloaded).
    const socket = connect({ ...tls, host: address.ip, port: address.port, rejectUnauthorized: false });
    const end = (fingerprint: string | undefined) => {
      socket.destroy();
      resolve(fingerprint);
    };
    socket.setTimeout(timeoutMs, () => end(undefined));
    socket.once('secureConnect', () => end(socket.getPeerCertificate().fingerprint256 || undefined));
    socket.once('error', () => end(undefined));
  });
}

export async function observeCertificates(
  nodes: readonly { readonly name: string; readonly address: Address }[],
  tls: ConnectionOptions,
): Promise<ServedCertificate[]> {
  return Promise.all(nodes.map(async (n) => ({ node: n.name, fingerprint: await servedFingerprint(n.address, tls) })));
}

/**
 * Reloads a node's certificate, key and CA from the files it was started with (CONFIG GET
 * gives the paths as the node knows them), in one CONFIG SET so the pair is checked together.
 */
export async function reloadCertificates(pool: NodePool, address: Address): Promise<void> {
  const pairs = (await command<string[]>(pool, address, 'CONFIG GET tls-*', ['CONFIG', 'GET', 'tls-*'])) ?? [];
  const paths = new Map<string, string>();
  for (let i = 0; i + 1 < pairs.length; i += 2) paths.set(pairs[i]!, pairs[i + 1]!);
  const args = TLS_FILES.flatMap((key) => (paths.get(key) ? [key, paths.get(key)!] : []));
  await command(pool, address, 'CONFIG SET tls-*', ['CONFIG', 'SET', ...args]);
}
