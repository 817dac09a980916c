// Password rotation without downtime, planned from hashes only (the values never reach the
// pure core). Redis ACL lets the default user hold several passwords, so a rotation is:
//   1: every node also accepts the new password      (ACL SETUSER default >new)
//   2: masterauth follows on every node              (CONFIG SET masterauth new)
//   3: clients are told to switch (the time is recorded) and get a grace period
//   4: the other passwords go                        (ACL SETUSER default !<hash>)
//   5: the new password is recorded as the one in force (pods restart with it)
// One phase a pass: each starts from a fresh observation, so a node restarted mid-way (it
// comes up with the password in force) is simply brought forward again.

/** What one node holds: the sha256 hex of each password of the default user, and of masterauth. */
export interface NodeAuth {
  readonly node: string;
  readonly passwordHashes: readonly string[];
  readonly masterauthHash: string | undefined;
}

/** The operator's record: the password in force, and when a new one was accepted everywhere. */
export interface RotationRecord {
  readonly activeHash: string;
  readonly accepted?: { readonly hash: string; readonly at: number };
}

export interface RotationInput {
  readonly desiredHash: string;
  readonly record: RotationRecord;
  readonly nodes: readonly NodeAuth[];
  readonly now: number;
  /** How long clients have to switch once every node accepts the new password. */
  readonly graceMs: number;
}

export type RotationStep =
  /** ACL SETUSER default >new on these nodes (the passwords they hold stay). */
  | { readonly kind: 'addPassword'; readonly nodes: readonly string[] }
  /** CONFIG SET masterauth new on these nodes. */
  | { readonly kind: 'setMasterauth'; readonly nodes: readonly string[] }
  /** Record that every node accepts the new password, now: clients may switch. */
  | { readonly kind: 'markAccepted' }
  /** ACL SETUSER default !<hash>... on one node. */
  | { readonly kind: 'removePasswords'; readonly node: string; readonly hashes: readonly string[] }
  /** Record the new password as the one in force (after the removals). */
  | { readonly kind: 'recordActive' };

export interface RotationPlan {
  readonly rotating: boolean;
  readonly steps: readonly RotationStep[];
  /** For status: "rotating password: 2/6 nodes accept the new password". */
  readonly progress?: string;
  /** While clients get their grace period: when to look again. */
  readonly requeueAfterMs?: number;
}

const settled: RotationPlan = { rotating: false, steps: [] };

export function planRotation(input: RotationInput): RotationPlan {
  const { desiredHash, record, nodes } = input;
  if (nodes.length === 0) return settled;
  const total = nodes.length;
  const extras = (n: NodeAuth) => n.passwordHashes.filter((h) => h !== desiredHash);
  const done =
    record.activeHash === desiredHash &&
    nodes.every((n) => n.masterauthHash === desiredHash && extras(n).length === 0 && n.passwordHashes.length === 1);
  if (done) return settled;
  // 1: the new password, added beside the ones held
  const lacking = nodes.filter((n) => !n.passwordHashes.includes(desiredHash)).map((n) => n.node);
  if (lacking.length > 0)
    return {
      rotating: true,
      steps: [{ kind: 'addPassword', nodes: lacking }],
      progress: `rotating password: ${total - lacking.length}/${total} nodes accept the new password`,
    };
  // 2: masterauth, once every node accepts the new password
  const oldMasterauth = nodes.filter((n) => n.masterauthHash !== desiredHash).map((n) => n.node);
  if (oldMasterauth.length > 0)
    return {
      rotating: true,
      steps: [{ kind: 'setMasterauth', nodes: oldMasterauth }],
      progress: `rotating password: ${total - oldMasterauth.length}/${total} nodes replicate with the new password`,
    };
  // 3: clients are told, and get their grace period
  const graceSeconds = Math.ceil(input.graceMs / 1000);
  if (record.accepted?.hash !== desiredHash)
    return {
      rotating: true,
      steps: [{ kind: 'markAccepted' }],
      progress: `rotating password: ${total}/${total} nodes accept the new password; clients switch now (old one removed in ${graceSeconds}s)`,
      requeueAfterMs: input.graceMs,
    };
  const left = record.accepted.at + input.graceMs - input.now;
  if (left > 0)
    return {
      rotating: true,
      steps: [],
      progress: `rotating password: ${total}/${total} nodes accept the new password; clients switch now (old one removed in ${Math.ceil(left / 1000)}s)`,
      requeueAfterMs: left,
    };
  // 4, 5: the other passwords go, then the new one is the one in force
  const removals: RotationStep[] = nodes
    .filter((n) => extras(n).length > 0)
    .map((n) => ({ kind: 'removePasswords', node: n.node, hashes: extras(n) }));
  return {
    rotating: true,
    steps: [...removals, { kind: 'recordActive' }],
    progress: `rotating password: removing the old password from ${removals.length}/${total} nodes`,
  };
}
