// The operator's record of the password in force, kept in the operator-owned Secret
// `<name>-auth-active`: its value (the pods start with it, and the operator reaches nodes that
// do not accept the new one yet with it) and, in annotations, its hash and when a new password
// was accepted by every node. Nothing here reaches a status, an Event or a log line.
import type { V1Secret } from '@kubernetes/client-node';
import { childLabels, ownerReference, type OwnerCluster } from '../resources/meta.ts';
import { PASSWORD_KEY } from '../resources/names.ts';
import type { RotationRecord } from './rotation.ts';

export const ANNOTATION_PASSWORD_HASH = 'cache.redis.io/password-hash';
/** `<hash of the new password>@<ms>`: every node accepted it then, and clients were told. */
export const ANNOTATION_PASSWORD_ACCEPTED = 'cache.redis.io/password-accepted';

export function activeSecretName(cluster: string): string {
  return `${cluster}-auth-active`;
}

/** The pods' password: the one in force, never the wanted one before every node accepts it. */
export function activeSecretRef(cluster: string): { name: string; key: string } {
  return { name: activeSecretName(cluster), key: PASSWORD_KEY };
}

export interface ActivePassword {
  readonly password: string;
  readonly hash: string;
  readonly accepted?: RotationRecord['accepted'];
}

export function desiredActiveSecret(cluster: OwnerCluster, active: ActivePassword): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: activeSecretName(cluster.metadata.name),
      namespace: cluster.metadata.namespace,
      labels: childLabels(cluster.metadata.name, 'auth'),
      ownerReferences: [ownerReference(cluster)],
      annotations: {
        [ANNOTATION_PASSWORD_HASH]: active.hash,
        ...(active.accepted ? { [ANNOTATION_PASSWORD_ACCEPTED]: `${active.accepted.hash}@${active.accepted.at}` } : {}),
      },
    },
    data: { [PASSWORD_KEY]: Buffer.from(active.password, 'utf8').toString('base64') },
  };
}

/** The record a stored active Secret holds, or undefined when there is none (or it is unreadable). */
export function activeOf(secret: V1Secret | undefined): ActivePassword | undefined {
  const stored = secret?.data?.[PASSWORD_KEY];
  const hash = secret?.metadata?.annotations?.[ANNOTATION_PASSWORD_HASH];
  if (!stored || !hash) return undefined;
  const accepted = /^([0-9a-f]{64})@(\d+)$/.exec(secret?.metadata?.annotations?.[ANNOTATION_PASSWORD_ACCEPTED] ?? '');
  return {
    password: Buffer.from(stored, 'base64').toString('utf8'),
    hash,
    ...(accepted ? { accepted: { hash: accepted[1] as string, at: Number(accepted[2]) } } : {}),
  };
}
