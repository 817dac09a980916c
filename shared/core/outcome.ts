// What one reconcile pass tells the queue (kube-rs' Action, controller-runtime's Result):
//   done          the resource converged; nothing to do until the next event or resync
//   awaitChange   waiting on something that will produce an event (a pod becoming Ready);
//                 the queue treats it like done, the name says why
//   requeueAfter  look again after ms even without an event (a wait, not a failure)
// A thrown TerminalError is never retried; any other thrown error is transient and retried
// with the per-key capped backoff. Only shared/io/queue maps these onto BullMQ.
// An outcome may carry a note for people (the dashboard, the job's return value); the queue's
// decisions never depend on it.
import { assertNever } from './assert-never.ts';
import type { RunNote } from './run-note.ts';

// Requeue delays, named by what a pass waits for; the only place delays are numbers.
/** Steps were just applied: look at their effect soon (the next MIGRATE batch, a failover). */
export const REQUEUE_AFTER_STEPS_MS = 200;
/** Gossip carries a MEET to every node within a few cluster-bus heartbeats. */
export const REQUEUE_GOSSIP_MS = 500;
/** What settles by itself within a second or so: views agreeing, a replica syncing, pods
 * starting, a Secret just created. */
export const REQUEUE_SETTLING_MS = 1_000;
/** Nothing to do but wait: a failed master's failover, a rolling restart, an unsettled cluster. */
export const REQUEUE_WAITING_MS = 2_000;
/** Waiting for a person (a Secret the spec names does not exist): no need to look often. */
export const REQUEUE_USER_ACTION_MS = 10_000;

export type Outcome = (
  { readonly kind: 'done' } | { readonly kind: 'awaitChange' } | { readonly kind: 'requeueAfter'; readonly ms: number }
) & { readonly note?: RunNote };

/** The outcome with a note for people attached. */
export const noted = (outcome: Outcome, note: RunNote): Outcome => ({ ...outcome, note });

export const done = (): Outcome => ({ kind: 'done' });
export const awaitChange = (): Outcome => ({ kind: 'awaitChange' });

/**
 * Of two outcomes of one pass, the one that looks again sooner (a requeue beats done and
 * awaitChange, the shorter requeue beats the longer); the first's note is kept.
 */
export function sooner(first: Outcome, second: Outcome): Outcome {
  const delay = (o: Outcome) => (o.kind === 'requeueAfter' ? o.ms : Infinity);
  if (delay(second) >= delay(first)) return first;
  return first.note ? { ...second, note: first.note } : second;
}

export function requeueAfter(ms: number): Outcome {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`requeueAfter needs a finite delay >= 0 ms, got ${ms}`);
  return { kind: 'requeueAfter', ms: Math.round(ms) };
}

/** A failure that retrying cannot fix (an invalid spec the webhook missed, a forbidden action). */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A failure worth retrying with backoff (a timeout, a conflict, a node not reachable yet). */
export class TransientError extends Error {
  override readonly name: string = 'TransientError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The reconcile ran past its time budget; it is retried like any transient failure. */
export class ReconcileTimeoutError extends TransientError {
  override readonly name = 'ReconcileTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`reconcile did not finish within ${timeoutMs} ms`);
  }
}

/**
 * The run no longer holds its key (its queue lock expired or was taken): another run may be
 * changing the same cluster, so this one stops before its next disruptive step. Not a failure
 * of the resource: the queue counts no failure and schedules no retry for it.
 */
export class OwnershipLostError extends TransientError {
  override readonly name = 'OwnershipLostError';
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`the run of ${key} no longer owns it; stopping before it changes anything else`, options);
  }
}

export function isTerminal(error: unknown): error is TerminalError {
  return error instanceof TerminalError;
}

/** The label controller-runtime puts on controller_runtime_reconcile_total. */
export function resultLabel(outcome: Outcome | 'error'): 'success' | 'requeue_after' | 'error' {
  if (outcome === 'error') return 'error';
  switch (outcome.kind) {
    case 'done':
    case 'awaitChange':
      return 'success';
    case 'requeueAfter':
      return 'requeue_after';
    default:
      return assertNever(outcome, 'outcome');
  }
}
