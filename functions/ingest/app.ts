// The ingest endpoint: POST / with CloudEvents from ApiServerSource (or knredis' own event
// source), from a sender that checkSender accepts (./sender-auth.ts). Replies
//   202 { keys }            every event mapped and its key queued
//   401 { error, reason }   no bearer token, or not a valid one (checked before the body is read)
//   403 { error, reason }   a valid token of a subject that may not send events
//   429 { error, reason }   an unknown token while its review is rate-limited (a flood of
//                           them), with Retry-After; the API server was not asked
//   400 { error, reason }   not a valid CloudEvent, unsupported type, or unrelated object;
//                           nothing queued (for a batch: nothing of the batch)
//   413 { error, reason }   body larger than the limit, or more events than maxEvents
//   415 { error, reason }   a compressed body (no sender here compresses)
//   503 { error, reason }   the queue's Redis (or the API lookup, or the token review) is
//                           unreachable, or the queue's Redis is nearly full; with
//                           Retry-After, since Knative retries 503 and 429, never 500
// It is a plain node:http handler, served before express sees the request (the server's
// direct routes, shared/io/http.ts): every event of the cluster passes here, and express'
// routing and body parsing were a quarter of ingest's CPU per event.
import type { IncomingMessage, RequestListener } from 'node:http';
import { replyJson } from '../../shared/io/http.ts';
import type { Logger } from '../../shared/io/log.ts';
import { outsideWatchNamespace } from './namespace-scope.ts';
import { InvalidEventError, parseEvents, TooManyEventsError } from './parse-events.ts';
import { refusalLog } from './refusal-log.ts';
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
  /** Called for every 503: the sender may give up on the events (./owed-resync.ts). */
  readonly onUnavailable?: () => void;
  readonly retryAfterS: number;
  readonly log: Logger;
  /** A namespaced install: events of other namespaces get a 400. */
  readonly watchNamespace?: string;
}

/** A flood of refused senders is summed up in one log line this often (./refusal-log.ts). */
const REFUSAL_LOG_EVERY_MS = 10_000;

/** A reply already decided: its status, its `{ error, reason }` and its extra headers. */
class Reply {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly reason: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** The handler, and what logs the refusals it only counted so far (call it at shutdown). */
export type IngestHandler = RequestListener & { readonly stop: () => void };

export function ingestHandler(options: IngestOptions): IngestHandler {
  const { enqueue, lookup, log } = options;
  const retryLater = { 'Retry-After': String(options.retryAfterS) };
  const unavailable = (error: string, reason: string) => new Reply(503, error, reason, retryLater);
  const refusals = refusalLog(log, REFUSAL_LOG_EVERY_MS);

  async function accept(req: IncomingMessage): Promise<{ keys: string[] } | Reply> {
    let decision;
    try {
      decision = await options.checkSender(req.headers.authorization);
    } catch (error) {
      log.warn({ err: error }, 'token review failed');
      return unavailable('auth-unavailable', 'the sender could not be authenticated; retry later');
    }
    if (!decision.ok) {
      const { status, error, reason, retryAfterS } = decision;
      // The reason names the subject at most, never the token.
      refusals.refused(`${status} ${error}`, { status, reason, from: req.socket.remoteAddress });
      return new Reply(status, error, reason, retryAfterS ? { 'Retry-After': String(retryAfterS) } : {});
    }
    const body = await readBody(req, options.maxBodyBytes);
    if (body instanceof Reply) return body;
    let events;
    try {
      events = parseEvents(req.headers, body, options.maxEvents);
    } catch (error) {
      if (error instanceof InvalidEventError) return new Reply(400, 'invalid-event', error.message);
      if (error instanceof TooManyEventsError) return new Reply(413, 'too-many-events', error.message);
      throw error;
    }
    if (options.queueFull?.()) return unavailable('queue-full', 'the reconcile queue is nearly full; retry later');
    const keys = new Set<string>();
    for (const event of events) {
      const outside = outsideWatchNamespace(event, options.watchNamespace);
      if (outside) return new Reply(400, 'outside-namespace', outside);
      let mapping;
      try {
        mapping = await toKeys(event, lookup);
      } catch (error) {
        log.warn({ err: error }, 'owner lookup failed');
        return unavailable(
          'lookup-unavailable',
          'the Kubernetes API could not be asked who owns the object; retry later',
        );
      }
      if ('unrelated' in mapping) return new Reply(400, 'unrelated-event', mapping.unrelated);
      for (const key of mapping.keys) keys.add(key);
    }
    try {
      // All at once: the queue sends keys queued together in one pipeline.
      await Promise.all([...keys].map((key) => enqueue(key)));
    } catch (error) {
      // Redis at its maxmemory (noeviction) refuses writes with OOM: full, not unreachable.
      if (/\bOOM\b/.test((error as Error).message ?? ''))
        return unavailable('queue-full', 'the reconcile queue is full; retry later');
      log.warn({ err: error }, 'queue unavailable');
      return unavailable('queue-unavailable', 'the reconcile queue is unreachable; retry later');
    }
    if (log.isLevelEnabled('debug')) log.debug({ keys: [...keys], events: events.length }, 'queued');
    return { keys: [...keys] };
  }

  const handle: RequestListener = (req, res) => {
    accept(req).then(
      (result) => {
        if (!(result instanceof Reply)) return replyJson(res, 202, result);
        if (result.status === 503) options.onUnavailable?.();
        replyJson(res, result.status, { error: result.error, reason: result.reason }, result.headers);
      },
      (error: unknown) => {
        log.error({ err: error }, 'ingest failed');
        replyJson(res, 500, { error: 'internal', reason: 'internal error' });
      },
    );
  };
  return Object.assign(handle, { stop: refusals.stop });
}

/**
 * The body as text, or the reply that refuses it. A body over the limit is not read further:
 * its reply closes the connection, the only way to be rid of the rest of it.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | Reply> {
  const tooLarge = () => new Reply(413, 'too-large', `the body exceeds ${limit} bytes`, { Connection: 'close' });
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    req.resume();
    return Promise.resolve(
      new Reply(415, 'unsupported-encoding', `content-encoding ${encoding} is not accepted; send the body as it is`),
    );
  }
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve(tooLarge());
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        req.removeAllListeners('data');
        req.pause();
        resolve(tooLarge());
      } else chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    // The sender went away mid-body: nobody hears the reply, and nothing was queued.
    req.on('error', () => resolve(new Reply(400, 'bad-request', 'the body could not be read')));
  });
}
