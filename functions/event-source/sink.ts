// POSTs CloudEvents to K_SINK in binary mode, retrying network errors, 429 and 5xx with the
// capped backoff, waiting at least what a Retry-After asks (within the cap). Any other status
// (400, 413, ...) is final: the sink has judged the event. An event that still fails after
// maxAttempts is dropped and logged: the periodic resync catches what was missed (as with
// ApiServerSource). stop() ends every retry at once. Each request carries `Authorization:
// Bearer <token>` when a token source is given (ingest refuses events without one).
import { HTTP, type CloudEvent } from 'cloudevents';
import { backoffDelay, type BackoffPolicy } from '../../shared/core/queue/backoff.ts';
import type { Logger } from '../../shared/io/log.ts';
import { abortableSleep } from './sleep.ts';

export interface SinkOptions {
  readonly url: string;
  readonly backoff: BackoffPolicy;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly log: Logger;
  /** The current bearer token for the sink (./token-file.ts); none sent when absent. */
  readonly token?: () => string;
  readonly random?: () => number;
  /** Waits ms or until signal aborts (tests record the delays). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type Send = (event: CloudEvent<unknown>) => Promise<boolean>;

const retriable = (status: number) => status === 429 || status >= 500;

/** Retry-After in seconds (the HTTP-date form is not used by Knative nor ingest). */
function retryAfterMs(res: Response): number {
  const seconds = Number(res.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

export function sinkSender(options: SinkOptions): Send & { stop(): void } {
  const { url, backoff, maxAttempts, log, random = Math.random, sleep = abortableSleep } = options;
  const stopping = new AbortController();
  const send = async (event: CloudEvent<unknown>): Promise<boolean> => {
    const message = HTTP.binary(event);
    const about = { type: event.type, subject: event.subject, id: event.id };
    for (let attempt = 1; attempt <= maxAttempts && !stopping.signal.aborted; attempt++) {
      let atLeastMs = 0;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            ...(message.headers as Record<string, string>),
            ...(options.token ? { authorization: `Bearer ${options.token()}` } : {}),
          },
          body: String(message.body),
          signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(options.timeoutMs)]),
        });
        await res.arrayBuffer();
        if (res.status < 300) return true;
        if (!retriable(res.status)) {
          log.warn({ ...about, status: res.status }, 'sink refused the event; not retried');
          return false;
        }
        atLeastMs = retryAfterMs(res);
        log.debug({ ...about, status: res.status, attempt }, 'sink busy; retrying');
      } catch (error) {
        log.debug({ ...about, err: error, attempt }, 'sink unreachable; retrying');
      }
      if (attempt < maxAttempts)
        await sleep(
          Math.min(Math.max(backoffDelay(attempt, backoff, random), atLeastMs), backoff.maxMs),
          stopping.signal,
        );
    }
    if (!stopping.signal.aborted)
      log.warn({ ...about, attempts: maxAttempts }, 'event dropped after retries; the resync will catch up');
    return false;
  };
  return Object.assign(send, { stop: () => stopping.abort() });
}
