import { expect } from 'chai';
import {
  planRotation,
  type NodeAuth,
  type RotationInput,
  type RotationPlan,
} from '../../../shared/core/reconcile/rotation.ts';

// Hashes stand for passwords: OLD in force, NEW wanted, OTHER an abandoned rotation's.
const OLD = 'old-hash';
const NEW = 'new-hash';
const OTHER = 'other-hash';
const GRACE = 30_000;
const NOW = 1_000_000;

function nodes(n: number, holds: (i: number) => Partial<NodeAuth> = () => ({})): NodeAuth[] {
  return Array.from({ length: n }, (_, i) => ({
    node: `n${i}`,
    passwordHashes: [OLD],
    masterauthHash: OLD,
    ...holds(i),
  }));
}
const both = { passwordHashes: [OLD, NEW] };
const switched = { passwordHashes: [OLD, NEW], masterauthHash: NEW };

function plan(fields: Partial<RotationInput>): RotationPlan {
  return planRotation({
    desiredHash: NEW,
    record: { activeHash: OLD },
    nodes: nodes(3),
    now: NOW,
    graceMs: GRACE,
    ...fields,
  });
}

describe('rotation', () => {
  const table: [string, Partial<RotationInput>, RotationPlan][] = [
    [
      'nothing rotates when every node holds only the password in force',
      { desiredHash: OLD },
      { rotating: false, steps: [] },
    ],
    ['nothing is planned before any node is observed', { nodes: [] }, { rotating: false, steps: [] }],
    [
      'every node is given the new password beside the old one when the Secret changed',
      {},
      {
        rotating: true,
        steps: [{ kind: 'addPassword', nodes: ['n0', 'n1', 'n2'] }],
        progress: 'rotating password: 0/3 nodes accept the new password',
      },
    ],
    [
      'only the node restarted with the old password is given the new one again',
      { nodes: nodes(3, (i) => (i === 1 ? {} : switched)) },
      {
        rotating: true,
        steps: [{ kind: 'addPassword', nodes: ['n1'] }],
        progress: 'rotating password: 2/3 nodes accept the new password',
      },
    ],
    [
      'masterauth follows once every node accepts the new password',
      { nodes: nodes(3, (i) => (i === 0 ? switched : both)) },
      {
        rotating: true,
        steps: [{ kind: 'setMasterauth', nodes: ['n1', 'n2'] }],
        progress: 'rotating password: 1/3 nodes replicate with the new password',
      },
    ],
    [
      'clients are told to switch once every node accepts and replicates with the new password',
      { nodes: nodes(3, () => switched) },
      {
        rotating: true,
        steps: [{ kind: 'markAccepted' }],
        progress: 'rotating password: 3/3 nodes accept the new password; clients switch now (old one removed in 30s)',
        requeueAfterMs: GRACE,
      },
    ],
    [
      'the old password stays while clients have their grace period',
      { nodes: nodes(3, () => switched), record: { activeHash: OLD, accepted: { hash: NEW, at: NOW - 10_000 } } },
      {
        rotating: true,
        steps: [],
        progress: 'rotating password: 3/3 nodes accept the new password; clients switch now (old one removed in 20s)',
        requeueAfterMs: 20_000,
      },
    ],
    [
      'clients are told again when the accepted password was an earlier new one',
      { nodes: nodes(3, () => switched), record: { activeHash: OLD, accepted: { hash: OTHER, at: NOW - GRACE } } },
      {
        rotating: true,
        steps: [{ kind: 'markAccepted' }],
        progress: 'rotating password: 3/3 nodes accept the new password; clients switch now (old one removed in 30s)',
        requeueAfterMs: GRACE,
      },
    ],
    [
      'the old passwords go after the grace period, then the new one is recorded as in force',
      {
        nodes: nodes(3, (i) => (i === 2 ? { ...switched, passwordHashes: [OLD, OTHER, NEW] } : switched)),
        record: { activeHash: OLD, accepted: { hash: NEW, at: NOW - GRACE } },
      },
      {
        rotating: true,
        steps: [
          { kind: 'removePasswords', node: 'n0', hashes: [OLD] },
          { kind: 'removePasswords', node: 'n1', hashes: [OLD] },
          { kind: 'removePasswords', node: 'n2', hashes: [OLD, OTHER] },
          { kind: 'recordActive' },
        ],
        progress: 'rotating password: removing the old password from 3/3 nodes',
      },
    ],
    [
      'the record follows alone when the removals were done before a crash',
      {
        nodes: nodes(3, () => ({ passwordHashes: [NEW], masterauthHash: NEW })),
        record: { activeHash: OLD, accepted: { hash: NEW, at: NOW - GRACE } },
      },
      {
        rotating: true,
        steps: [{ kind: 'recordActive' }],
        progress: 'rotating password: removing the old password from 0/3 nodes',
      },
    ],
    [
      'a rotation abandoned half-way (the Secret set back) still removes the password clients were told of, after the grace',
      { desiredHash: OLD, nodes: nodes(3, () => ({ passwordHashes: [OLD, NEW] })), record: { activeHash: OLD } },
      {
        rotating: true,
        steps: [{ kind: 'markAccepted' }],
        progress: 'rotating password: 3/3 nodes accept the new password; clients switch now (old one removed in 30s)',
        requeueAfterMs: GRACE,
      },
    ],
  ];
  for (const [name, input, expected] of table)
    it(`plans: ${name}`, () => {
      expect(plan(input)).to.deep.equal(expected);
    });

  it('plans: a whole rotation reaches the settled state in passes', () => {
    let held = nodes(3);
    let record: RotationInput['record'] = { activeHash: OLD };
    let now = NOW;
    const kinds: string[] = [];
    for (let pass = 0; pass < 10; pass++) {
      const p = planRotation({ desiredHash: NEW, record, nodes: held, now, graceMs: GRACE });
      if (!p.rotating) break;
      for (const step of p.steps) {
        kinds.push(step.kind);
        if (step.kind === 'addPassword')
          held = held.map((n) =>
            step.nodes.includes(n.node) ? { ...n, passwordHashes: [...n.passwordHashes, NEW] } : n,
          );
        if (step.kind === 'setMasterauth') held = held.map((n) => ({ ...n, masterauthHash: NEW }));
        if (step.kind === 'markAccepted') record = { ...record, accepted: { hash: NEW, at: now } };
        if (step.kind === 'removePasswords')
          held = held.map((n) =>
            n.node === step.node
              ? { ...n, passwordHashes: n.passwordHashes.filter((h) => !step.hashes.includes(h)) }
              : n,
          );
        if (step.kind === 'recordActive') record = { activeHash: NEW };
      }
      now += p.requeueAfterMs ?? 200;
    }
    expect(kinds).to.deep.equal([
      'addPassword',
      'setMasterauth',
      'markAccepted',
      'removePasswords',
      'removePasswords',
      'removePasswords',
      'recordActive',
    ]);
    expect(planRotation({ desiredHash: NEW, record, nodes: held, now, graceMs: GRACE })).to.deep.equal({
      rotating: false,
      steps: [],
    });
  });
});
