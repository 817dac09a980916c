// Tokens for ingest's senders outside a cluster (`npm run dev`, the operator stack, tests),
// got the way a kubelet gets a projected token: the TokenRequest API of the real API server,
// for a real ServiceAccount, with ingest's audience. The token is written to a file the way
// the kubelet writes a projected volume (a new file, then an atomic rename), and renewed
// before it expires, so the event source reads it exactly as it does in a pod.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isConflict, isNotFound } from '../../shared/io/kube/errors.ts';
import { INGEST_AUDIENCE } from '../../functions/start-config.ts';

export const SYSTEM_NAMESPACE = 'knredis-system';
export const EVENT_SOURCE_ACCOUNT = 'knredis-event-source';

export interface TokenRequestOptions {
  readonly namespace?: string;
  readonly serviceAccount?: string;
  readonly audience?: string;
  /** The API server's minimum is 600. */
  readonly expirationSeconds?: number;
}

/**
 * Creates the namespace and the ServiceAccount when missing (both may exist already). A
 * namespace still being deleted (an earlier user of the environment tore it down without
 * waiting) takes no new object: wait until it is gone, then create it again.
 */
export async function ensureServiceAccount(
  kc: KubeConfig,
  namespace: string,
  name: string,
  timeoutMs = 180_000,
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const ignoringConflict = (p: Promise<unknown>) =>
    p.catch((error: unknown) => {
      if (!isConflict(error)) throw error;
    });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await ignoringConflict(core.createNamespace({ body: { metadata: { name: namespace } } }));
      await ignoringConflict(core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } }));
      return;
    } catch (error) {
      if (!namespaceInFlux(error, namespace) || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * The namespace refused the ServiceAccount because it is being deleted, or it was found (a
 * conflict, terminating) by the first call and was gone by the second (404): both pass once it
 * is created again.
 */
export function namespaceInFlux(error: unknown, namespace: string): boolean {
  const body = String((error as { body?: unknown }).body);
  if (/NamespaceTerminating|is being terminated/.test(body)) return true;
  if (!isNotFound(error)) return false;
  try {
    const { details } = JSON.parse(body) as { details?: { kind?: string; name?: string } };
    return details?.kind === 'namespaces' && details.name === namespace;
  } catch {
    return false;
  }
}

/** A token of the ServiceAccount (created when missing) from the TokenRequest API. */
export async function requestToken(kc: KubeConfig, options: TokenRequestOptions = {}): Promise<string> {
  const namespace = options.namespace ?? SYSTEM_NAMESPACE;
  const name = options.serviceAccount ?? EVENT_SOURCE_ACCOUNT;
  await ensureServiceAccount(kc, namespace, name);
  const answer = await kc.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name,
    namespace,
    body: {
      spec: { audiences: [options.audience ?? INGEST_AUDIENCE], expirationSeconds: options.expirationSeconds ?? 3600 },
    },
  });
  const token = answer.status?.token;
  if (!token) throw new Error(`the API server returned no token for ${namespace}/${name}`);
  return token;
}

export interface TokenFile {
  readonly path: string;
  stop(): void;
}

/** Writes a token to dir/token and renews it at 2/3 of its life until stop(). */
export async function keepTokenFile(
  kc: KubeConfig,
  dir: string,
  options: TokenRequestOptions & { readonly onError?: (error: unknown) => void } = {},
): Promise<TokenFile> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'token');
  const write = async () => {
    const next = join(dir, '.token.next');
    writeFileSync(next, await requestToken(kc, options), { mode: 0o600 });
    renameSync(next, path);
  };
  await write();
  const everyMs = ((options.expirationSeconds ?? 3600) * 1000 * 2) / 3;
  const timer = setInterval(() => void write().catch((error: unknown) => options.onError?.(error)), everyMs);
  timer.unref();
  return { path, stop: () => clearInterval(timer) };
}
