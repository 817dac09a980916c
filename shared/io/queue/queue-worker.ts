// The consumer side of the reconcile queue: runs the injected reconcile for one key at a
// time per key, across any number of processes, and maps its outcome onto the queue:
//   done / awaitChange  forget the key's failures; a change during the run -> one more run
//   requeueAfter(ms)    forget the failures; run again after ms unless a change came first
//   transient error     count a failure; run again after the capped backoff (or at once on
//                       the next event); the job is marked failed for the dashboard
//   TerminalError       forget the failures; no retry; the job is marked failed
//   lost ownership      the lock is gone (expired, taken, lost with a queue-Redis restart):
//                       the run stops (its signal is aborted, assertOwner throws); no failure
//                       is counted and no retry scheduled: BullMQ's stalled check runs it again
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import {
  isTerminal,
  OwnershipLostError,
  ReconcileTimeoutError,
  resultLabel,
  type Outcome,
} from '../../core/outcome.ts';
import type { RunRecord } from '../../core/run-note.ts';
import { backoffDelay, type BackoffPolicy } from '../../core/queue/backoff.ts';
import type { Logger } from '../log.ts';
import type { QueueMetrics } from '../metrics.ts';
import { producerConnection, workerConnection, type QueueRedisTarget } from './connection.ts';
import { lockOwnership } from './ownership.ts';
import { dedupIdOf, queueKeys, type QueueNames } from './keys.ts';
import { isReconcileJob, jobNameOf, type ReconcileJobData } from './job-options.ts';
import { runLog } from './run-log.ts';
import { runReturn, type RunReturn } from './run-return.ts';
import { defineScripts, deferResult, type DeferResult } from './scripts.ts';

export interface ReconcileContext {
  /** Aborted when the run exceeds its time budget or the worker is forced to stop. */
  readonly signal: AbortSignal;
  /** Carries the key and the reconcile id. */
  readonly log: Logger;
  readonly reconcileId: string;
  /** Consecutive failures before this run (0 after a success). */
  readonly failures: number;
  /**
   * Throws OwnershipLostError unless this run still holds its key's queue lock. Call it right
   * before each disruptive step: a run that lost the lock may have a second run beside it.
   */
  readonly assertOwner: () => Promise<void>;
}

/** For a reconcile run outside the queue (tests, benchmarks): nothing else can run the key. */
export const soleOwner = async (): Promise<void> => {};

/** The seam the reconciler plugs into: a key in, an outcome out (or a thrown error). */
export type Reconcile = (key: string, context: ReconcileContext) => Promise<Outcome>;

export interface QueueWorkerSettings {
  readonly concurrency: number;
  /** Time budget of one reconcile; its signal is aborted after this. */
  readonly timeoutMs: number;
  /** How long a job's lock lives without renewal: a killed worker's key runs again after this. */
  readonly lockDurationMs: number;
  /** How often workers look for jobs whose lock expired. */
  readonly stalledIntervalMs: number;
  /** A job that stalls more often than this is failed (the next event or resync requeues the key). */
  readonly maxStalledCount: number;
  readonly backoff: BackoffPolicy;
}

export interface QueueWorkerOptions {
  /** The queue's Redis: a URL, a Redis Cluster or Sentinel. */
  readonly redis: QueueRedisTarget;
  readonly names: QueueNames;
  readonly reconcile: Reconcile;
  readonly settings: QueueWorkerSettings;
  readonly log: Logger;
  readonly metrics?: QueueMetrics;
  /** Random source for the backoff jitter. */
  readonly random?: () => number;
  /** Handlers of other job names sharing the queue (the resync). */
  readonly handlers?: Readonly<Record<string, () => Promise<void>>>;
  /** Name used in the metrics' controller label. */
  readonly controller?: string;
}

export interface QueueWorker {
  /** Stops taking jobs and waits for the runs in flight to finish. */
  close(): Promise<void>;
  readonly bull: Worker;
}

/**
 * The abort controller of one run. A pass reads its children, pods, claims and Secrets at once,
 * each request listening on the signal: more than Node's default of 10 listeners.
 */
export function runAbortController(): AbortController {
  const abort = new AbortController();
  setMaxListeners(32, abort.signal);
  return abort;
}

export function startQueueWorker(options: QueueWorkerOptions): QueueWorker {
  const {
    names,
    reconcile,
    settings,
    log,
    metrics,
    random = Math.random,
    handlers = {},
    controller = 'rediscluster',
  } = options;
  const keys = queueKeys(names);
  const commands = workerConnection(options.redis);
  commands.on('error', () => {});
  const scripts = defineScripts(commands);
  const runs = runLog(commands, names);
  // Fails fast: a lock that cannot be read within a short time proves no ownership.
  const locks = producerConnection(options.redis, Math.min(2_000, settings.lockDurationMs));
  const running = new Map<string, AbortController>();

  /** Keeps the run for the dashboard; a failure to do so never changes what the queue does. */
  async function keep(run: RunRecord, outcome: Outcome | undefined, logger: Logger): Promise<RunReturn> {
    const note = outcome?.note;
    const kept: RunRecord = {
      ...run,
      ...(note?.summary ? { summary: note.summary } : {}),
      ...(note?.status?.phase ? { phase: note.status.phase } : {}),
    };
    await runs
      .record(kept, note)
      .catch((error: unknown) => logger.warn({ err: error }, 'could not keep the run for the dashboard'));
    return runReturn(kept);
  }

  async function runOne(job: Job<ReconcileJobData>, token: string | undefined): Promise<RunReturn> {
    const key = job.data.key;
    const reconcileId = randomUUID().slice(0, 8);
    const runLogger = log.child({ key, reconcileId, jobId: job.id, reason: job.data.reason, pid: process.pid });
    // With the end line below (same reconcileId), the chaos suite proves no two runs of a key overlap.
    runLogger.info('run started');
    const failures = Number(await commands.hget(keys.failures, key)) || 0;
    const readyAt = job.timestamp + (job.delay ?? 0);
    metrics?.queueDuration.observe({ name: names.queue }, Math.max(0, Date.now() - readyAt) / 1000);
    const started = performance.now();
    let outcome: Outcome | undefined;
    let failure: unknown;
    const { assertOwner } = lockOwnership(
      locks,
      keys.lock(String(job.id)),
      token,
      key,
      Math.min(2_000, settings.lockDurationMs),
    );
    const abort = runAbortController();
    running.set(String(job.id), abort);
    try {
      outcome = await runBounded(
        reconcile,
        key,
        { log: runLogger, reconcileId, failures, assertOwner },
        abort,
        settings.timeoutMs,
        runLogger,
      );
    } catch (error) {
      failure = error;
    } finally {
      running.delete(String(job.id));
    }
    // When the reconcile itself ended, on every end line: what follows is the queue's
    // bookkeeping, which waits for the queue's Redis (the chaos suite times runs by this).
    const endedAt = Date.now();
    const seconds = (performance.now() - started) / 1000;
    metrics?.workDuration.observe({ name: names.queue }, seconds);
    metrics?.reconcileTime.observe({ controller }, seconds);
    metrics?.reconcileTotal.inc({ controller, result: resultLabel(outcome ?? 'error') });
    const run = { key, jobId: String(job.id), at: Date.now(), durationMs: Math.round(seconds * 1000) };

    // 1: success or a wait: the key's backoff starts over.
    if (outcome) {
      await commands.hdel(keys.failures, key);
      const deferred =
        outcome.kind === 'requeueAfter' ? await defer(job, outcome.ms, { key, reason: 'requeue' }) : undefined;
      runLogger.info({ outcome, deferred, ms: Math.round(seconds * 1000), endedAt }, 'reconciled');
      const result = outcome.kind === 'requeueAfter' ? 'requeue' : outcome.kind;
      return keep(
        { ...run, result, ...(outcome.kind === 'requeueAfter' ? { delayMs: outcome.ms } : {}) },
        outcome,
        runLogger,
      );
    }
    metrics?.reconcileErrors.inc({ controller });
    // 2: lost ownership: not the resource's failure; whoever holds the key now goes on.
    if (failure instanceof OwnershipLostError || abort.signal.reason instanceof OwnershipLostError) {
      runLogger.warn({ err: failure, endedAt }, 'run lost its key; stopped without counting a failure');
      throw failure instanceof Error ? failure : new OwnershipLostError(key);
    }
    const message = failure instanceof Error ? failure.message : String(failure);
    // 3: terminal: never retried; the next event for the key starts afresh.
    if (isTerminal(failure)) {
      await commands.hdel(keys.failures, key);
      runLogger.error({ err: failure, endedAt }, 'reconcile failed for good');
      await keep({ ...run, result: 'terminal', error: message }, undefined, runLogger);
      throw new UnrecoverableError(`${failure.name}: ${message}`);
    }
    // 4: transient: retried after the capped backoff, or at once on the next change.
    const count = await commands.hincrby(keys.failures, key, 1);
    const delay = backoffDelay(count, settings.backoff, random);
    metrics?.retries.inc({ name: names.queue });
    const deferred = await defer(job, delay, { key, reason: 'retry', failures: count });
    runLogger.warn(
      { err: failure, failures: count, retryInMs: delay, deferred, endedAt },
      'reconcile failed; will retry',
    );
    await keep({ ...run, result: 'retry', error: message, delayMs: delay, failures: count }, undefined, runLogger);
    throw failure instanceof Error ? failure : new Error(message);
  }

  async function defer(job: Job<ReconcileJobData>, delayMs: number, data: ReconcileJobData): Promise<DeferResult> {
    const code = await scripts.knDefer(
      keys.dedupNext(dedupIdOf(data.key)),
      keys.job(String(job.id)),
      delayMs,
      jobNameOf(data.key),
      JSON.stringify(data),
    );
    return deferResult(code);
  }

  const worker = new Worker<ReconcileJobData>(
    names.queue,
    async (job, token) => {
      const handler = handlers[job.name];
      if (handler) return handler();
      if (!isReconcileJob(job.name, job.data)) throw new UnrecoverableError(`unknown job ${job.name}`);
      return runOne(job, token);
    },
    {
      connection: workerConnection(options.redis),
      prefix: names.prefix,
      concurrency: settings.concurrency,
      lockDuration: settings.lockDurationMs,
      stalledInterval: settings.stalledIntervalMs,
      maxStalledCount: settings.maxStalledCount,
    },
  );
  worker.on('error', (error) => log.warn({ err: error }, 'queue worker error'));
  worker.on('stalled', (jobId) => log.warn({ jobId }, 'a run lost its worker; it runs again'));
  // A lock that could not be renewed is lost: stop the run at its next check of the signal.
  worker.on('lockRenewalFailed', (jobIds) => {
    for (const id of jobIds) running.get(id)?.abort(new OwnershipLostError(`job ${id}`));
  });

  return {
    bull: worker,
    async close() {
      await worker.close();
      await worker.disconnect().catch(() => {});
      commands.disconnect();
      locks.disconnect();
    },
  };
}

/**
 * Runs reconcile with an abort signal fired after timeoutMs. The run still counts as in
 * flight until its promise settles: a reconcile that ignores the signal keeps its key
 * (no second run can start beside it) and is reported, never abandoned.
 */
async function runBounded(
  reconcile: Reconcile,
  key: string,
  context: Omit<ReconcileContext, 'signal'>,
  controller: AbortController,
  timeoutMs: number,
  log: Logger,
): Promise<Outcome> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new ReconcileTimeoutError(timeoutMs));
    log.warn({ timeoutMs }, 'reconcile ran out of time; aborting it');
  }, timeoutMs);
  try {
    const outcome = await reconcile(key, { ...context, signal: controller.signal });
    if (timedOut) throw new ReconcileTimeoutError(timeoutMs);
    return outcome;
  } catch (error) {
    if (timedOut && !isTerminal(error)) throw new ReconcileTimeoutError(timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
