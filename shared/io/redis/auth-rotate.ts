// One pass of a password rotation: observe what every node holds (hashes), plan
// (shared/core/reconcile/rotation.ts), apply the Redis steps and hand the record steps to
// the caller, which keeps the record in Kubernetes.
import type { Address } from '../../core/cluster/topology.ts';
import {
  planRotation,
  type RotationPlan,
  type RotationRecord,
  type RotationStep,
} from '../../core/reconcile/rotation.ts';
import { applyRotationStep, observeAuth, passwordHash } from './auth.ts';
import type { NodePool } from './connection.ts';

export interface PasswordRotation {
  /** The wanted password (from the referenced or generated Secret). */
  readonly desired: string;
  readonly record: RotationRecord;
  /** How long clients have to switch once every node accepts the new password. */
  readonly graceMs: number;
  /** Keeps the record: clients were told at `now`, or the wanted password is now in force. */
  readonly save: (step: 'markAccepted' | 'recordActive', now: number) => Promise<void>;
}

export interface RotationResult {
  readonly plan: RotationPlan;
  readonly applied: readonly RotationStep[];
}

export async function rotatePassword(
  pool: NodePool,
  nodes: readonly { readonly name: string; readonly address: Address }[],
  rotation: PasswordRotation,
  now: number,
): Promise<RotationResult> {
  const held = await observeAuth(pool, nodes);
  const plan = planRotation({
    desiredHash: passwordHash(rotation.desired),
    record: rotation.record,
    nodes: held,
    now,
    graceMs: rotation.graceMs,
  });
  const addressOf = (node: string) => {
    const found = nodes.find((n) => n.name === node);
    if (!found) throw new Error(`rotation planned for unknown node ${node}`);
    return found.address;
  };
  const applied: RotationStep[] = [];
  for (const step of plan.steps) {
    if (step.kind === 'markAccepted' || step.kind === 'recordActive') await rotation.save(step.kind, now);
    else await applyRotationStep(pool, step, addressOf, rotation.desired);
    applied.push(step);
  }
  return { plan, applied };
}

/** The Event for a step: counts and node names only. */
export function describeRotationStep(step: RotationStep): string {
  switch (step.kind) {
    case 'addPassword':
      return `new password added beside the old one on ${step.nodes.length} node(s)`;
    case 'setMasterauth':
      return `masterauth set to the new password on ${step.nodes.length} node(s)`;
    case 'markAccepted':
      return 'every node accepts the new password: clients switch now';
    case 'removePasswords':
      return `old password removed from ${step.node}`;
    case 'recordActive':
      return 'the new password is in force; restarted pods come up with it';
  }
}
