// One policy for a failed pass, in one place (kube-rs' error_policy, the error path of
// Knative's generated reconcilers). Whatever a pass throws once its RedisCluster is loaded:
//   lost ownership  silent: the run that holds the key now tells, and acts
//   anything else   one Warning Event (ReconcileFailed), and the Degraded condition says why
// The error then goes back to the queue, which retries it with backoff (never a TerminalError).
// Reporting does not use the run's signal: a run its time budget stopped is reported too.
import { ApiException } from '@kubernetes/client-node';
import type { RedisCluster } from '../../shared/core/api/v1beta1.ts';
import { OwnershipLostError, TerminalError } from '../../shared/core/outcome.ts';
import { failedStatus } from '../../shared/core/reconcile/status.ts';
import { fromKey, type ResourceRef } from '../../shared/core/resource-key.ts';
import type { KubeClient } from '../../shared/io/kube/kube-client.ts';
import type { Logger } from '../../shared/io/log.ts';
import { writeStatus } from './apply-kube.ts';
import { recorder } from './events.ts';

export interface FailedPass {
  readonly kube: KubeClient;
  /** The RedisCluster as last read or written by the pass. */
  readonly cluster: RedisCluster;
  readonly log: Logger;
  readonly clock: () => number;
  /** The run's signal: once aborted, its reason is why the pass failed. */
  readonly signal: AbortSignal;
}

/** Reports a failed pass as the policy says; returns the error to hand to the queue. */
export async function reportFailure(error: unknown, pass: FailedPass): Promise<unknown> {
  const cause: unknown = pass.signal.aborted ? pass.signal.reason : error;
  if (cause instanceof OwnershipLostError) return cause;
  const { kube, cluster, log, clock } = pass;
  const message = describeFailure(cause);
  await recorder(kube, cluster, log, clock).warning('ReconcileFailed', message);
  const now = new Date(clock()).toISOString();
  try {
    await writeStatus(kube, cluster, failedStatus(cluster.status, cluster.metadata.generation ?? 0, message, now));
  } catch (writeError) {
    log.warn({ err: describeFailure(writeError) }, 'could not record the failure in status');
  }
  return cause;
}

/** A key that is not namespace/name never becomes one: retrying it cannot help. */
export function refOf(key: string): ResourceRef {
  try {
    return fromKey(key);
  } catch (error) {
    throw new TerminalError((error as Error).message, { cause: error });
  }
}

/** One line for an Event and a condition: the API server's own message, not its headers. */
function describeFailure(error: unknown): string {
  if (error instanceof ApiException) {
    const body: unknown = typeof error.body === 'string' ? parseJson(error.body) : error.body;
    const detail = (body as { message?: unknown } | undefined)?.message;
    return `the API server answered ${error.code}${typeof detail === 'string' ? `: ${detail}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
