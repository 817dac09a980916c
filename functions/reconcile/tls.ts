// The TLS side of a pass (spec.tls): the Secret is read from the API server each pass (never
// cached), and only its public half is kept: the CA to verify nodes against and the
// fingerprint of the certificate they should serve. tls.key is never read into anything.
import { X509Certificate } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import type { V1Secret } from '@kubernetes/client-node';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { childNames } from '../../shared/core/resources/names.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';

export interface TlsAccess {
  /** How the operator connects: the Secret's CA, and the name every node's certificate holds. */
  readonly connection: ConnectionOptions;
  /** sha256 fingerprint of the Secret's tls.crt, in Node's `AB:CD:...` form. */
  readonly fingerprint: string;
}

/** The TLS Secret's state: absent spec.tls (undefined), usable, or why not (a message, no data). */
export type TlsObservation = { readonly access: TlsAccess } | { readonly problem: string } | undefined;

/**
 * The name the operator verifies: the client Service's, `<name>.<namespace>.svc`, which every
 * node's certificate must hold (the sample Certificate does), as clients reach it by that name.
 */
export function serverNameOf(cluster: RedisCluster): string {
  return `${childNames(cluster.metadata.name ?? '').clientService}.${cluster.metadata.namespace ?? ''}.svc`;
}

export async function observeTls(
  kube: KubeClient,
  cluster: RedisCluster,
  signal?: AbortSignal,
): Promise<TlsObservation> {
  const name = cluster.spec.tls?.secretRef?.name;
  if (!name) return undefined;
  const secret = await kube.read<V1Secret>('v1', 'Secret', cluster.metadata.namespace ?? '', name, signal);
  return tlsAccessOf(secret, name, serverNameOf(cluster));
}

export function tlsAccessOf(secret: V1Secret | undefined, name: string, servername: string): TlsObservation {
  const file = (key: string) => {
    const data = secret?.data?.[key];
    return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
  };
  const [cert, ca] = [file('tls.crt'), file('ca.crt')];
  const lacking = ['tls.crt', 'tls.key', 'ca.crt'].filter((k) => !secret?.data?.[k]);
  if (!secret) return { problem: `Secret ${name} (spec.tls.secretRef) was not found` };
  if (lacking.length > 0 || !cert || !ca)
    return {
      problem: `Secret ${name} (spec.tls.secretRef) lacks ${lacking.join(', ')}: a kubernetes.io/tls Secret with ca.crt is needed`,
    };
  let fingerprint: string;
  try {
    fingerprint = new X509Certificate(cert).fingerprint256;
  } catch {
    return { problem: `Secret ${name} (spec.tls.secretRef): tls.crt is not a PEM certificate` };
  }
  return { access: { connection: { ca, servername }, fingerprint } };
}
