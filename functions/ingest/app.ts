// The ingest endpoint: POST / with CloudEvents from ApiServerSource (or knredis' own event
// source). Replies
//   202 { keys }            every event mapped and its key queued
//   400 { error, reason }   not a valid CloudEvent, unsupported type, or unrelated object;
//                           nothing queued (for a batch: nothing of the batch)
//   413 { error, reason }   body larger than the limit
//   503 { error, reason }   the queue's Redis (or the API lookup) is unreachable; with
//                           Retry-After, since Knative retries 503 and 429, never 500
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { sendError } from '../../shared/io/http.ts';
import type { Logger } from '../../shared/io/log.ts';
import { InvalidEventError, parseEvents } from './parse-events.ts';
import { outsideWatchNamespace } from './namespace-scope.ts';
import { toKeys, type OwnerLookup } from './to-keys.ts';

export interface IngestOptions {
  readonly enqueue: (key: string) => Promise<void>;
  readonly lookup?: OwnerLookup;
  readonly maxBodyBytes: number;
  readonly retryAfterS: number;
  readonly log: Logger;
  /** A namespaced install: events of other namespaces get a 400. */
  readonly watchNamespace?: string;
}

export function ingestRouter(options: IngestOptions): Router {
  const { enqueue, lookup, log } = options;
  const router = express.Router();
  router.post(
    '/',
    express.raw({ type: () => true, limit: options.maxBodyBytes }),
    async (req: Request, res: Response) => {
      const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      let events;
      try {
        events = parseEvents(req.headers, body);
      } catch (error) {
        if (error instanceof InvalidEventError) return sendError(res, 400, 'invalid-event', error.message);
        throw error;
      }
      const keys = new Set<string>();
      for (const event of events) {
        const outside = outsideWatchNamespace(event, options.watchNamespace);
        if (outside) return sendError(res, 400, 'outside-namespace', outside);
        let mapping;
        try {
          mapping = await toKeys(event, lookup);
        } catch (error) {
          log.warn({ err: error }, 'owner lookup failed');
          return sendError(
            res,
            503,
            'lookup-unavailable',
            'the Kubernetes API could not be asked who owns the object; retry later',
            { 'Retry-After': String(options.retryAfterS) },
          );
        }
        if ('unrelated' in mapping) return sendError(res, 400, 'unrelated-event', mapping.unrelated);
        for (const key of mapping.keys) keys.add(key);
      }
      try {
        // All at once: the queue sends keys queued together in one pipeline.
        await Promise.all([...keys].map((key) => enqueue(key)));
      } catch (error) {
        log.warn({ err: error }, 'queue unavailable');
        return sendError(res, 503, 'queue-unavailable', 'the reconcile queue is unreachable; retry later', {
          'Retry-After': String(options.retryAfterS),
        });
      }
      log.debug({ keys: [...keys], events: events.length }, 'queued');
      res.status(202).json({ keys: [...keys] });
    },
  );
  // Body-parser errors (too large, bad encoding) as JSON; anything else is a bug: 500.
  router.use(
    (
      error: { status?: number; type?: string; message?: string },
      _req: Request,
      res: Response,
      _next: NextFunction,
    ) => {
      if (error.type === 'entity.too.large')
        return sendError(res, 413, 'too-large', `the body exceeds ${options.maxBodyBytes} bytes`);
      if (error.status && error.status >= 400 && error.status < 500)
        return sendError(res, error.status, 'bad-request', error.message ?? 'bad request');
      log.error({ err: error }, 'ingest failed');
      return sendError(res, 500, 'internal', 'internal error');
    },
  );
  return router;
}
