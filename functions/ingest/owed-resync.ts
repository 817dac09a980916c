// A resync owed after an outage. When ingest answers 503 (the queue's Redis or the API lookup
// is away), the sender drops the event once its retries are spent: Knative's ApiServerSource
// adapter gives up after about 3 s and never sends it again. So each 503 makes ingest owe a
// resync: it tries every `everyMs` to queue one `resync` job (the worker then queues every
// RedisCluster), and succeeds as soon as the queue answers again. A change made during an
// outage is then reconciled within seconds of the recovery, not at the next periodic resync.
import type { Logger } from '../../shared/io/log.ts';

export interface OwedResyncOptions {
  /** Queues one resync job; rejects while the queue is unreachable. */
  readonly requestResync: () => Promise<void>;
  readonly everyMs: number;
  readonly log: Logger;
}

export interface OwedResync {
  /** An event was refused: a resync is owed until one is queued. */
  owe(): void;
  stop(): void;
}

export function owedResync({ requestResync, everyMs, log }: OwedResyncOptions): OwedResync {
  let timer: NodeJS.Timeout | undefined;
  let since: number | undefined;
  let trying = false;
  const attempt = async () => {
    if (trying) return;
    trying = true;
    try {
      await requestResync();
      clearInterval(timer);
      timer = undefined;
      log.info({ owedForMs: Date.now() - (since ?? Date.now()) }, 'queue back after refused events: resync queued');
      since = undefined;
    } catch {
      /* still away: the next tick tries again */
    } finally {
      trying = false;
    }
  };
  return {
    owe() {
      since ??= Date.now();
      timer ??= setInterval(() => void attempt(), everyMs);
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
