// apply(step): the I/O of one planned step. Errors are typed (NodeUnreachableError,
// ClusterCommandError, StaleObservationError, SlotNotEmptyError, FailoverTimeoutError);
// replies that mean "already done" are success, so a step can be applied twice. A run that was
// aborted or no longer owns its key changes nothing more: both are checked before each step,
// each migrated chunk and each MIGRATE batch.
import { assertNever } from '../../core/assert-never.ts';
import { ClusterCommandError, StaleObservationError } from '../../core/cluster/errors.ts';
import { describeStep, type Step } from '../../core/cluster/steps.ts';
import { command, nodeName, pipeline, type NodePool } from './connection.ts';
import { failover } from './failover.ts';
import { migrateSlots, type MigrateOptions } from './migrate-slots.ts';

export interface ApplyOptions {
  readonly migrate?: MigrateOptions;
  readonly failoverTimeoutMs?: number;
  /** Structured log of each step (pino child); steps carry no secrets. */
  readonly log?: { info(obj: object, msg: string): void };
  readonly signal?: AbortSignal;
  /** Throws when this run may no longer change the cluster (another run owns the key now). */
  readonly assertOwner?: () => Promise<void>;
}

export async function applyStep(pool: NodePool, step: Step, options: ApplyOptions = {}): Promise<void> {
  options.signal?.throwIfAborted();
  await options.assertOwner?.();
  options.log?.info({ step: step.kind }, describeStep(step));
  switch (step.kind) {
    case 'setConfigEpoch':
      try {
        await command(pool, step.node.address, 'SET-CONFIG-EPOCH', ['CLUSTER', 'SET-CONFIG-EPOCH', step.epoch]);
      } catch (error) {
        if (
          error instanceof ClusterCommandError &&
          /only when the node does not know any other node|epoch of this node is not zero/i.test(error.reply)
        ) {
          throw new StaleObservationError(
            `${nodeName(step.node.address)} already joined others; config epoch not set`,
            { cause: error },
          );
        }
        throw error;
      }
      return;
    case 'addSlots':
      await command(pool, step.node.address, 'ADDSLOTSRANGE', [
        'CLUSTER',
        'ADDSLOTSRANGE',
        ...step.ranges.flatMap((r) => [r.start, r.end]),
      ]);
      return;
    case 'meet':
      await command(pool, step.from.address, 'MEET', [
        'CLUSTER',
        'MEET',
        step.to.ip,
        step.to.port,
        ...(step.busPort ? [step.busPort] : []),
      ]);
      return;
    case 'announce': {
      const to = step.to ?? { ip: '', port: 0, busPort: 0 };
      await command(pool, step.node.address, 'ANNOUNCE', [
        'CONFIG',
        'SET',
        'cluster-announce-ip',
        to.ip,
        'cluster-announce-port',
        to.port,
        'cluster-announce-bus-port',
        to.busPort,
      ]);
      return;
    }
    case 'replicate':
      await command(pool, step.node.address, 'REPLICATE', ['CLUSTER', 'REPLICATE', step.master.id]);
      return;
    case 'migrate':
      await migrateSlots(pool, step.moves, step.masters, {
        ...options.migrate,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.assertOwner ? { assertOwner: options.assertOwner } : {}),
      });
      return;
    case 'closeSlots': {
      // Re-check right before closing: a key on the importer would be stranded by STABLE.
      const counts = await pipeline(
        pool,
        step.node.address,
        'COUNTKEYSINSLOT',
        step.slots.map((s) => ['CLUSTER', 'COUNTKEYSINSLOT', s]),
      );
      const safe = step.slots.filter((_, i) => !counts[i]?.[0] && Number(counts[i]?.[1]) === 0);
      const replies = await pipeline(
        pool,
        step.node.address,
        'SETSLOT STABLE',
        safe.map((s) => ['CLUSTER', 'SETSLOT', s, 'STABLE']),
      );
      for (const [e] of replies)
        if (e) throw new ClusterCommandError('SETSLOT STABLE', nodeName(step.node.address), e.message);
      if (safe.length < step.slots.length)
        throw new StaleObservationError(
          `${step.slots.length - safe.length} slot(s) gained keys before they could be closed`,
        );
      return;
    }
    case 'forget': {
      // All at once, so no node gossips the id back to one that already forgot it.
      const results = await Promise.allSettled(
        step.on.map((n) => command(pool, n.address, 'FORGET', ['CLUSTER', 'FORGET', step.id])),
      );
      const failed = results
        .flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []))
        .filter((e) => !(e instanceof ClusterCommandError && /Unknown node/i.test(e.reply)));
      if (failed.length > 0) throw failed[0];
      return;
    }
    case 'reset':
      // HARD: a new id, so the pod can rejoin later without hitting the 60 s FORGET ban on the old one.
      await command(pool, step.node.address, 'RESET', ['CLUSTER', 'RESET', 'HARD']);
      return;
    case 'failover':
      await failover(pool, step.replica, step.mode, options.failoverTimeoutMs, options.signal);
      return;
    default:
      assertNever(step);
  }
}
