// What planCluster returns: the steps of this pass, what is wrong that steps cannot fix
// (reported in status), progress for status, and which removed pods may now be deleted.
import type { Step } from './steps.ts';

export type ProblemCode =
  | 'NodeUnreachable' // a pod of the cluster does not answer
  | 'ShardDown' // a master with slots failed; Redis should fail over by itself
  | 'ShardLost' // a master with slots failed and no replica can take over
  | 'SlotsUncovered' // slots nobody serves and that cannot be assigned without data loss
  | 'OpenSlotBlocked' // an interrupted migration whose other end is not reachable
  | 'StrandedKeys' // keys of a slot on a node that neither owns nor migrates it
  | 'ConflictingStranger' // a node outside the cluster claims slots the cluster owns
  | 'ForeignCluster' // before bootstrap, a pod already knows nodes no pod of the cluster carries
  | 'ExternalAddressPending' // spec.externalAccess: a pod's Service or load balancer gives it no address yet
  | 'PlacementRelaxed' // a replica shares a zone (or node) with its master: no better seat exists
  | 'NotEnoughPods'; // fewer usable pods than masters * (1 + replicas)

export interface Problem {
  readonly code: ProblemCode;
  readonly message: string;
  /** Slots affected, when the problem is about slots. */
  readonly slots?: number;
}

/**
 * Problems that are reported but do not hold Ready down: a placement preference the pods
 * cannot meet stays unmet for good, so it must not keep the cluster from converging.
 */
const blocking: Record<ProblemCode, boolean> = {
  NodeUnreachable: true,
  ShardDown: true,
  ShardLost: true,
  SlotsUncovered: true,
  OpenSlotBlocked: true,
  StrandedKeys: true,
  ConflictingStranger: true,
  ForeignCluster: true,
  ExternalAddressPending: true,
  PlacementRelaxed: false,
  NotEnoughPods: true,
};

export function isBlocking(problem: Problem): boolean {
  return blocking[problem.code];
}

/** What one planning phase returns: its steps (or 'wait') and what steps cannot fix. */
export interface PhasePlan<S = Step[]> {
  readonly steps: S;
  readonly problems: readonly Problem[];
}

export type Phase =
  'waiting' | 'bootstrapping' | 'joining' | 'resuming' | 'healing' | 'replicating' | 'migrating' | 'removing' | 'ready';

export interface Progress {
  readonly phase: Phase;
  /** For status conditions, e.g. "migrating slots: 5461 to move". */
  readonly message: string;
  /** Slots this plan's migrate step moves, and slots still off balance overall. */
  readonly slotsInStep?: number;
  readonly slotsToMove?: number;
}

export interface ClusterPlan {
  readonly steps: readonly Step[];
  readonly problems: readonly Problem[];
  readonly progress: Progress;
  /** Pods marked removing that the cluster has forgotten: safe to delete. */
  readonly removable: readonly string[];
  /** Nothing to do and nothing wrong. */
  readonly converged: boolean;
  /** When to look again if nothing happens (0 when converged and healthy). */
  readonly requeueAfterMs: number;
}
