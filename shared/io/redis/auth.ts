// The Redis side of a password rotation: which password each node accepts, what its default
// user and masterauth hold (as sha256 hashes, the way ACL GETUSER prints them), and the steps
// of shared/core/reconcile/rotation.ts. Password values go to Redis only: never into a
// message, an error or a log line (errors carry the node and the operation, not the command).
import { createHash } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import { Redis } from 'ioredis';
import { ClusterCommandError, NodeUnreachableError } from '../../core/cluster/errors.ts';
import type { Address } from '../../core/cluster/topology.ts';
import type { NodeAuth, RotationStep } from '../../core/reconcile/rotation.ts';
import { command, nodeName, type NodePool } from './connection.ts';

/** The hash Redis shows for a password in ACL GETUSER (sha256, hex). */
export function passwordHash(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('hex');
}

/**
 * For each node, the first of `candidates` it accepts (by a throwaway AUTH), keyed by address;
 * a node that accepts none, or cannot be reached, is left out (the pool's default applies).
 */
export async function resolvePasswords(
  addresses: readonly Address[],
  candidates: readonly string[],
  connectTimeoutMs = 3_000,
  tls?: ConnectionOptions,
): Promise<Map<string, string>> {
  const chosen = new Map<string, string>();
  await Promise.all(
    addresses.map(async (address) => {
      const probe = new Redis({
        host: address.ip,
        port: address.port,
        ...(tls ? { tls } : {}),
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        connectTimeout: connectTimeoutMs,
        enableReadyCheck: false,
      });
      probe.on('error', () => {
        /* an unreachable node is left to the pass' own observation */
      });
      try {
        await probe.connect();
        for (const password of candidates) {
          const accepted = await probe.call('AUTH', password).then(
            () => true,
            () => false,
          );
          if (accepted) {
            chosen.set(nodeName(address), password);
            return;
          }
        }
      } catch {
        /* unreachable: left out */
      } finally {
        probe.disconnect();
      }
    }),
  );
  return chosen;
}

/** What each node's default user and masterauth hold, as hashes (nodes named by `nameOf`). */
export async function observeAuth(
  pool: NodePool,
  nodes: readonly { readonly name: string; readonly address: Address }[],
): Promise<NodeAuth[]> {
  return Promise.all(
    nodes.map(async ({ name, address }) => {
      const user = await command<unknown[]>(pool, address, 'ACL GETUSER', ['ACL', 'GETUSER', 'default']);
      const [, masterauth] = await command<string[]>(pool, address, 'CONFIG GET', ['CONFIG', 'GET', 'masterauth']);
      const at = user.indexOf('passwords');
      const hashes = at >= 0 && Array.isArray(user[at + 1]) ? (user[at + 1] as unknown[]).map(String) : [];
      return {
        node: name,
        passwordHashes: hashes,
        masterauthHash: masterauth ? passwordHash(String(masterauth)) : undefined,
      };
    }),
  );
}

/** Applies one Redis step of a rotation (the record steps belong to the caller). */
export async function applyRotationStep(
  pool: NodePool,
  step: Exclude<RotationStep, { kind: 'markAccepted' } | { kind: 'recordActive' }>,
  addressOf: (node: string) => Address,
  desiredPassword: string,
): Promise<void> {
  const run = (node: string, operation: string, args: string[]) => quietly(pool, addressOf(node), operation, args);
  if (step.kind === 'addPassword')
    await Promise.all(
      step.nodes.map((n) => run(n, 'ACL SETUSER', ['ACL', 'SETUSER', 'default', `>${desiredPassword}`])),
    );
  else if (step.kind === 'setMasterauth')
    await Promise.all(step.nodes.map((n) => run(n, 'CONFIG SET', ['CONFIG', 'SET', 'masterauth', desiredPassword])));
  else await run(step.node, 'ACL SETUSER', ['ACL', 'SETUSER', 'default', ...step.hashes.map((h) => `!${h}`)]);
}

/**
 * A command whose arguments hold a password: its failure is rethrown without the cause, which
 * (an ioredis reply error) carries the command's arguments.
 */
export async function quietly(
  pool: NodePool,
  address: Address,
  operation: string,
  args: string[],
  refused = 'refused while rotating the password',
): Promise<void> {
  try {
    await command(pool, address, operation, args);
  } catch (error) {
    if (error instanceof NodeUnreachableError) throw new NodeUnreachableError(error.node);
    throw new ClusterCommandError(operation, nodeName(address), refused);
  }
}
