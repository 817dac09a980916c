// The steps a plan is made of. Each names nodes by id and address so apply() needs no lookup,
// and says why it exists. `disruptive` steps move data or roles; a plan holds at most one.
import { assertNever } from '../assert-never.ts';
import type { AnnouncedAddress } from './desired.ts';
import type { Address } from './topology.ts';
import type { SlotRange } from './slots.ts';

export interface NodeRef {
  readonly id: string;
  readonly address: Address;
  readonly pod?: string;
}

export interface SlotMove {
  readonly source: NodeRef;
  readonly target: NodeRef;
  readonly slots: readonly number[];
}

export type Step =
  /** CLUSTER SET-CONFIG-EPOCH on a fresh node (only valid before it knows any other node). */
  | { readonly kind: 'setConfigEpoch'; readonly node: NodeRef; readonly epoch: number }
  /** CLUSTER ADDSLOTSRANGE: bootstrap, or an uncovered slot no node holds keys for. */
  | {
      readonly kind: 'addSlots';
      readonly node: NodeRef;
      readonly ranges: readonly SlotRange[];
      readonly reason: string;
    }
  /** CLUSTER MEET sent to `from` about `to` (and its bus port, when it is not port + 10000). */
  | {
      readonly kind: 'meet';
      readonly from: NodeRef;
      readonly to: Address;
      readonly busPort?: number;
      readonly reason: string;
    }
  /**
   * CONFIG SET cluster-announce-ip, -port and -bus-port on a node (spec.externalAccess), or
   * clears them (`to` null): the node then gives its peers and clients that address.
   */
  | { readonly kind: 'announce'; readonly node: NodeRef; readonly to: AnnouncedAddress | null; readonly reason: string }
  /** CLUSTER REPLICATE on `node`. */
  | { readonly kind: 'replicate'; readonly node: NodeRef; readonly master: NodeRef; readonly reason: string }
  /** Live slot migration (also finishes interrupted ones); independent pairs run in parallel. */
  | {
      readonly kind: 'migrate';
      readonly moves: readonly SlotMove[];
      readonly reason: string;
      readonly masters: readonly NodeRef[];
    }
  /** CLUSTER SETSLOT slot STABLE on a node importing a slot whose source never started. */
  | { readonly kind: 'closeSlots'; readonly node: NodeRef; readonly slots: readonly number[]; readonly reason: string }
  /** CLUSTER FORGET id on every listed node, all at once (inside the 60 s ban window). */
  | { readonly kind: 'forget'; readonly id: string; readonly on: readonly NodeRef[]; readonly reason: string }
  /** CLUSTER RESET HARD on a removed (already forgotten) node so it cannot gossip its way back. */
  | { readonly kind: 'reset'; readonly node: NodeRef; readonly reason: string }
  /**
   * CLUSTER FAILOVER [FORCE] on a replica, then wait until it is master. Never TAKEOVER: it
   * skips the masters' vote, so from the minority side of a partition it would discard writes.
   */
  | {
      readonly kind: 'failover';
      readonly replica: NodeRef;
      readonly master: NodeRef;
      readonly mode: 'default' | 'force';
      readonly reason: string;
    };

export type StepKind = Step['kind'];

/** Steps that move slots or roles: at most one per plan. */
const disruptive: Record<StepKind, boolean> = {
  setConfigEpoch: false,
  addSlots: false,
  meet: false,
  announce: false,
  replicate: false,
  migrate: true,
  closeSlots: false,
  forget: false,
  reset: false,
  failover: true,
};

export function isDisruptive(step: Step): boolean {
  return disruptive[step.kind];
}

/** A short human line for logs and Events (never carries secrets: steps hold none). */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'setConfigEpoch':
      return `set config epoch ${step.epoch} on ${label(step.node)}`;
    case 'addSlots':
      return `add ${step.ranges.length} slot range(s) to ${label(step.node)}: ${step.reason}`;
    case 'meet':
      return `meet ${step.to.ip}:${step.to.port} from ${label(step.from)}: ${step.reason}`;
    case 'announce':
      return step.to
        ? `announce ${label(step.node)} at ${step.to.ip}:${step.to.port} (bus ${step.to.busPort}): ${step.reason}`
        : `announce ${label(step.node)} at its own address: ${step.reason}`;
    case 'replicate':
      return `make ${label(step.node)} a replica of ${label(step.master)}: ${step.reason}`;
    case 'migrate':
      return `migrate ${step.moves.reduce((n, m) => n + m.slots.length, 0)} slot(s) in ${step.moves.length} move(s): ${step.reason}`;
    case 'closeSlots':
      return `close ${step.slots.length} open slot(s) on ${label(step.node)}: ${step.reason}`;
    case 'forget':
      return `forget ${step.id.slice(0, 8)} on ${step.on.length} node(s): ${step.reason}`;
    case 'reset':
      return `reset ${label(step.node)}: ${step.reason}`;
    case 'failover':
      return `${step.mode} failover of ${label(step.master)} to ${label(step.replica)}: ${step.reason}`;
    default:
      return assertNever(step);
  }
}

function label(n: NodeRef): string {
  return n.pod ?? `${n.id.slice(0, 8)}@${n.address.ip}:${n.address.port}`;
}
