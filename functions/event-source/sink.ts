// POSTs CloudEvents to K_SINK in binary mode, retrying network errors, 429 and 5xx with the
// capped backoff. An event that still fails is dropped and logged: the periodic resync
// catches what was missed (as with ApiServerSource).
import { HTTP, type CloudEvent } from 'cloudevents';
import { backoffDelay, type BackoffPolicy } from '../../shared/core/queue/backoff.ts';
import type { Logger } from '../../shared/io/log.ts';

export interface SinkOptions {
  readonly url: string;
  readonly backoff: BackoffPolicy;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly log: Logger;
  readonly sleep?: (ms: number) => Promise<void>;
}

export type Send = (event: CloudEvent<unknown>) => Promise<boolean>;

const retriable = (status: number) => status === 429 || status >= 500;

export function sinkSender(options: SinkOptions): Send & { stop(): void } {
  const { url, backoff, maxAttempts, log } = options;
  let stopped = false;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const send = async (event: CloudEvent<unknown>): Promise<boolean> => {
    const message = HTTP.binary(event);
    for (let attempt = 1; attempt <= maxAttempts && !stopped; attempt++) {
      try {
        const res = await fetch(url, { method: 'POST', headers: message.headers as Record<string, string>, body: String(message.body), signal: AbortSignal.timeout(options.timeoutMs) });
        await res.arrayBuffer();
        const status = res.status;
        if (status < 300) return true;
        if (!retriable(status)) {
          log.warn({ status, type: event.type, subject: event.subject }, 'sink refused the event');
          return false;
        }
      } catch (error) {
        log.debug({ err: error }, 'sink unreachable');
      }
      if (attempt < maxAttempts) await sleep(backoffDelay(attempt, backoff, Math.random));
    }
    log.warn({ type: event.type, subject: event.subject, attempts: maxAttempts }, 'event dropped after retries; the resync will catch up');
    return false;
  };
  return Object.assign(send, { stop: () => { stopped = true; } });
}
