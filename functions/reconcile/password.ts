// The password side of a pass: how to reach each node (the wanted password, or the one in
// force where a node does not accept the wanted one yet) and the rotation's record, kept in
// the operator-owned Secret <name>-auth-active. Values go to Redis and that Secret only.
import type { ConnectionOptions } from 'node:tls';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import type { Observed } from '../../shared/core/reconcile/observed.ts';
import { activeOf, desiredActiveSecret } from '../../shared/core/reconcile/rotation-record.ts';
import { CLIENT_PORT } from '../../shared/core/resources/names.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import { passwordHash, resolvePasswords } from '../../shared/io/redis/auth.ts';
import type { PasswordRotation } from '../../shared/io/redis/auth-rotate.ts';
import type { NodePoolOptions } from '../../shared/io/redis/connection.ts';
import { ownerOf } from './children.ts';

export interface PasswordSetup {
  readonly pool: Pick<NodePoolOptions, 'auth' | 'passwordOf'>;
  readonly rotation: PasswordRotation;
}

export async function passwordSetup(
  kube: KubeClient,
  cluster: RedisCluster,
  observed: Observed,
  desired: string,
  graceMs: number,
  tls?: ConnectionOptions,
): Promise<PasswordSetup> {
  const desiredHash = passwordHash(desired);
  const active = activeOf(observed.children.activeSecret) ?? { password: desired, hash: desiredHash };
  // Mid-rotation a node may accept only one of the two (a pod restarted with the one in force).
  const addresses = observed.pods.flatMap((p) => (p.ip ? [{ ip: p.ip, port: CLIENT_PORT }] : []));
  const passwordOf =
    active.hash === desiredHash
      ? undefined
      : await resolvePasswords(addresses, [desired, active.password], undefined, tls);
  const owner = ownerOf(cluster);
  return {
    pool: { auth: { password: desired }, ...(passwordOf ? { passwordOf } : {}) },
    rotation: {
      desired,
      record: { activeHash: active.hash, ...(active.accepted ? { accepted: active.accepted } : {}) },
      graceMs,
      save: async (step, now) => {
        const next =
          step === 'markAccepted'
            ? { ...active, accepted: { hash: desiredHash, at: now } }
            : { password: desired, hash: desiredHash };
        await kube.apply(desiredActiveSecret(owner, next) as never);
      },
    },
  };
}
