// The ingest endpoint: POST / with CloudEvents from ApiServerSource (or knredis' own event
// source), from a sender that checkSender accepts (./sender-auth.ts). Replies
//   202 { keys }            every event mapped and its key queued
//   401 { error, reason }   no bearer token, or not a valid one (checked before the body is read)
//   403 { error, reason }   a valid token of a subject that may not send events
//   400 { error, reason }   not a valid CloudEvent, unsupported type, or unrelated object;
//                           nothing queued (for a batch: nothing of the batch)
//   413 { error, reason }   body larger than the limit, or more events than maxEvents
//   503 { error, reason }   the queue's Redis (or the API lookup, or the token review) is
//                           unreachable, or the queue's Redis is nearly full; with
//                           Retry-After, since Knative retries 503 and 429, never 500
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { sendError } from '../../shared/io/http.ts';
import type { Logger } from '../../shared/io/log.ts';
import { outsideWatchNamespace } from './namespace-scope.ts';
import { InvalidEventError, parseEvents, TooManyEventsError } from './parse-events.ts';
import type { CheckSender } from './sender-auth.ts';
import { toKeys, type OwnerLookup } from './to-keys.ts';

export interface IngestOptions {
  readonly enqueue: (key: string) => Promise<void>;
  readonly lookup?: OwnerLookup;
  /** Who may post: tokenReviewSender(...), or anySender when authentication is off. */
  readonly checkSender: CheckSender;
  readonly maxBodyBytes: number;
  /** Events one request may carry (a batch). */
  readonly maxEvents: number;
  /** True while the queue's Redis is too full to take more (./queue-pressure.ts). */
  readonly queueFull?: () => boolean;
  readonly retryAfterS: number;
  readonly log: Logger;
  /** A namespaced install: events of other namespaces get a 400. */
  readonly watchNamespace?: string;
}

export function ingestRouter(options: IngestOptions): Router {
  const { enqueue, lookup, log } = options;
  const retryLater = { 'Retry-After': String(options.retryAfterS) };
  const router = express.Router();
  router.post(
    '/',
    async (req: Request, res: Response, next: NextFunction) => {
      let decision;
      try {
        decision = await options.checkSender(req.headers.authorization);
      } catch (error) {
        log.warn({ err: error }, 'token review failed');
        return sendError(
          res,
          503,
          'auth-unavailable',
          'the sender could not be authenticated; retry later',
          retryLater,
        );
      }
      if (decision.ok) return next();
      // The reason names the subject at most, never the token.
      log.warn({ status: decision.status, reason: decision.reason, from: req.socket.remoteAddress }, 'event refused');
      return sendError(res, decision.status, decision.error, decision.reason);
    },
    express.raw({ type: () => true, limit: options.maxBodyBytes }),
    async (req: Request, res: Response) => {
      const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      let events;
      try {
        events = parseEvents(req.headers, body, options.maxEvents);
      } catch (error) {
        if (error instanceof InvalidEventError) return sendError(res, 400, 'invalid-event', error.message);
        if (error instanceof TooManyEventsError) return sendError(res, 413, 'too-many-events', error.message);
        throw error;
      }
      if (options.queueFull?.())
        return sendError(res, 503, 'queue-full', 'the reconcile queue is nearly full; retry later', retryLater);
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
            retryLater,
          );
        }
        if ('unrelated' in mapping) return sendError(res, 400, 'unrelated-event', mapping.unrelated);
        for (const key of mapping.keys) keys.add(key);
      }
      try {
        // All at once: the queue sends keys queued together in one pipeline.
        await Promise.all([...keys].map((key) => enqueue(key)));
      } catch (error) {
        // Redis at its maxmemory (noeviction) refuses writes with OOM: full, not unreachable.
        if (/\bOOM\b/.test((error as Error).message ?? ''))
          return sendError(res, 503, 'queue-full', 'the reconcile queue is full; retry later', retryLater);
        log.warn({ err: error }, 'queue unavailable');
        return sendError(res, 503, 'queue-unavailable', 'the reconcile queue is unreachable; retry later', retryLater);
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
