// The Secrets a RedisCluster's reconcile reads, by name: the password (the user's or the
// generated one), the certificate, and those knredis keeps for the cluster (the password in
// force, the monitoring user's). An event for any of them reconciles the cluster at once, so a
// rotated password or certificate, or a kept Secret deleted by hand, is not left to the resync.
import { activeSecretName } from '../reconcile/rotation-record.ts';
import { monitorSecretName } from './monitor-user.ts';
import { childNames } from './names.ts';

interface SecretRef {
  readonly name?: string;
}

export interface SecretUser {
  readonly metadata?: { readonly name?: string };
  readonly spec?: {
    readonly auth?: { readonly secretRef?: SecretRef };
    readonly tls?: { readonly secretRef?: SecretRef };
  };
}

export function secretsUsedBy(cluster: SecretUser): string[] {
  const name = cluster.metadata?.name;
  if (!name) return [];
  const tls = cluster.spec?.tls?.secretRef?.name;
  return [
    cluster.spec?.auth?.secretRef?.name ?? childNames(name).generatedSecret,
    activeSecretName(name),
    monitorSecretName(name),
    ...(tls ? [tls] : []),
  ];
}
