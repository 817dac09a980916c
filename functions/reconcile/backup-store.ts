// The object store a backup's storage names, with the keys from its credentials Secret (and
// the CA from its caSecretRef). The keys go to the store's client and nowhere else: a missing
// Secret or key is reported by name, never by value.
import type { V1Secret } from '@kubernetes/client-node';
import type { BackupStorageSpec } from '../../shared/core/api/backup-v1beta1.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import { createS3Store, type ObjectStore } from '../../shared/io/object-store.ts';

/** A backup cannot start: a Secret is missing or lacks a key. The message names them only. */
export class BackupSetupError extends Error {
  override readonly name = 'BackupSetupError';
}

const DEFAULT_REGION = 'us-east-1';

export async function openStore(
  kube: KubeClient,
  namespace: string,
  storage: BackupStorageSpec,
  signal?: AbortSignal,
): Promise<ObjectStore> {
  const s3 = storage.s3;
  const value = async (secret: string, key: string, field: string, optional = false) => {
    const found = await kube.read<V1Secret>('v1', 'Secret', namespace, secret, signal);
    if (!found) throw new BackupSetupError(`Secret ${secret} (${field}) was not found`);
    const data = found.data?.[key];
    if (!data && !optional) throw new BackupSetupError(`Secret ${secret} (${field}) has no key ${key}`);
    return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
  };
  const credentials = s3.credentialsSecretRef.name;
  const field = 'storage.s3.credentialsSecretRef';
  const accessKeyId = (await value(credentials, 'accessKeyId', field)) as string;
  const secretAccessKey = (await value(credentials, 'secretAccessKey', field)) as string;
  const sessionToken = await value(credentials, 'sessionToken', field, true);
  const ca = s3.caSecretRef ? await value(s3.caSecretRef.name, 'ca.crt', 'storage.s3.caSecretRef') : undefined;
  return createS3Store({
    region: s3.region ?? DEFAULT_REGION,
    bucket: s3.bucket,
    accessKeyId,
    secretAccessKey,
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    ...(s3.prefix ? { prefix: s3.prefix } : {}),
    ...(s3.forcePathStyle !== undefined ? { forcePathStyle: s3.forcePathStyle } : {}),
    ...(sessionToken ? { sessionToken } : {}),
    ...(ca ? { ca } : {}),
  });
}
