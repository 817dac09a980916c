// Typed errors of cluster operations, by what the caller must do. Each carries the failed
// operation and its cause; none carries a password (commands are never put in messages).
import { TransientError } from '../outcome.ts';

/** A Redis node could not be reached or answered with a connection error: retry. */
export class NodeUnreachableError extends TransientError {
  override readonly name = 'NodeUnreachableError';
  constructor(
    readonly node: string,
    options?: { cause?: unknown },
  ) {
    super(`redis node ${node} is unreachable`, options);
  }
}

/** A cluster command was refused; the message is Redis' own error text. */
export class ClusterCommandError extends TransientError {
  override readonly name = 'ClusterCommandError';
  constructor(
    readonly operation: string,
    readonly node: string,
    readonly reply: string,
    options?: { cause?: unknown },
  ) {
    super(`${operation} on ${node} failed: ${reply}`, options);
  }
}

/** The world changed under a step (a slot owner moved, a node left): observe and plan again. */
export class StaleObservationError extends TransientError {
  override readonly name = 'StaleObservationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A slot's source still holds keys when the slot would change owner (the key rounds ran out, or
 * a MIGRATE was interrupted): the slot stays open, nothing is handed over, a later pass goes on.
 */
export class SlotNotEmptyError extends TransientError {
  override readonly name = 'SlotNotEmptyError';
  constructor(
    readonly source: string,
    readonly keysBySlot: Readonly<Record<number, number>>,
  ) {
    super(
      `${source} still holds keys in ${Object.keys(keysBySlot).length} slot(s) being moved; not handing them over yet`,
    );
  }
}

/** A planned or forced failover did not switch roles in time. */
export class FailoverTimeoutError extends TransientError {
  override readonly name = 'FailoverTimeoutError';
  constructor(
    readonly replica: string,
    readonly timeoutMs: number,
  ) {
    super(`replica ${replica} did not become master within ${timeoutMs} ms`);
  }
}
