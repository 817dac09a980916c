// Typed errors of cluster operations, by what the caller must do. Each carries the failed
// operation and its cause; none carries a password (commands are never put in messages).
import { TerminalError, TransientError } from '../outcome.ts';

/** A Redis node could not be reached or answered with a connection error: retry. */
export class NodeUnreachableError extends TransientError {
  override readonly name = 'NodeUnreachableError';
  constructor(readonly node: string, options?: { cause?: unknown }) {
    super(`redis node ${node} is unreachable`, options);
  }
}

/** A cluster command was refused; the message is Redis' own error text. */
export class ClusterCommandError extends TransientError {
  override readonly name = 'ClusterCommandError';
  constructor(readonly operation: string, readonly node: string, readonly reply: string, options?: { cause?: unknown }) {
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

/** A key exists on both ends of a slot move with different values: a human must decide. */
export class MigrationConflictError extends TerminalError {
  constructor(readonly slot: number, readonly keys: number, readonly source: string, readonly target: string) {
    super(`slot ${slot}: ${keys} key(s) exist on both ${source} and ${target} with different values; not overwriting`);
    // TerminalError fixes `name` as a literal type; the instance still reports its own.
    Object.defineProperty(this, 'name', { value: 'MigrationConflictError' });
  }
}

/** A planned or forced failover did not switch roles in time. */
export class FailoverTimeoutError extends TransientError {
  override readonly name = 'FailoverTimeoutError';
  constructor(readonly replica: string, readonly timeoutMs: number) {
    super(`replica ${replica} did not become master within ${timeoutMs} ms`);
  }
}
