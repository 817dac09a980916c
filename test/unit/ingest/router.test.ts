import { expect } from 'chai';
import { CloudEvent, HTTP } from 'cloudevents';
import { listen, notFound, probeRoutes, type Listening } from '../../../shared/io/http.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { ingestHandler } from '../../../functions/ingest/app.ts';
import { tokenReviewSender, type Review } from '../../../functions/ingest/sender-auth.ts';

const cluster = {
  apiVersion: 'cache.redis.io/v1beta1',
  kind: 'RedisCluster',
  metadata: { namespace: 'prod', name: 'cache' },
};
const stranger = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'prod', name: 'web-1' } };

function ceOf(object: object, verb: 'add' | 'update' | 'delete' = 'update') {
  const { data, ...attributes } = eventAttributes(object, verb);
  return new CloudEvent({ id: 'e1', source: 'https://127.0.0.1:6443', ...attributes, data });
}

const sender = 'system:serviceaccount:knredis-system:knredis-event-source';
// What the API server answers for each token (its TokenReview), and for the audience asked.
const reviews: Record<string, Review> = {
  good: { authenticated: true, username: sender, audiences: ['knredis-ingest'] },
  other: { authenticated: true, username: 'system:serviceaccount:default:web', audiences: ['knredis-ingest'] },
  forged: { authenticated: false },
};

describe('ingest router', () => {
  let server: Listening;
  let queued: string[];
  let failing: boolean | 'oom';
  let full: boolean;
  let apiDown: boolean;
  let reviewsLimited: boolean;
  let unavailable: number;

  before(async () => {
    const realCheck = tokenReviewSender({
      review: async (token) => {
        if (apiDown) throw new Error('connect ECONNREFUSED');
        return reviews[token] ?? { authenticated: false };
      },
      audience: 'knredis-ingest',
      allowedSubjects: [sender],
      cacheTtlMs: 0,
      cacheSize: 1,
      // Every request is reviewed here (no cache); the limit is sender-auth.test.ts' subject.
      reviewLimit: { ratePerS: 1, burst: 1_000 },
    });
    const ingest = ingestHandler({
      enqueue: async (key) => {
        if (failing)
          throw new Error(
            failing === 'oom' ? "OOM command not allowed when used memory > 'maxmemory'." : "Stream isn't writeable",
          );
        queued.push(key);
      },
      // The review limit's decision as sender-auth.ts makes it (sender-auth.test.ts tests when).
      checkSender: (authorization) =>
        reviewsLimited
          ? Promise.resolve({ ok: false, status: 429, error: 'too-many-reviews', reason: 'later', retryAfterS: 4 })
          : realCheck(authorization),
      queueFull: () => full,
      onUnavailable: () => unavailable++,
      maxBodyBytes: 4096,
      maxEvents: 3,
      retryAfterS: 3,
      log: createLogger({ level: 'silent' }),
    });
    server = await listen(notFound, 0, '127.0.0.1', new Map([...probeRoutes({}), ['POST /', ingest]]));
  });
  after(() => server.close());
  beforeEach(() => {
    queued = [];
    failing = false;
    full = false;
    apiDown = false;
    reviewsLimited = false;
    unavailable = 0;
  });

  type Sent = { headers: Record<string, unknown>; body: unknown };
  const post = (message: Sent, token = 'good') =>
    fetch(server.url + '/', {
      method: 'POST',
      headers: {
        ...(message.headers as Record<string, string>),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: String(message.body),
    });
  const batchOf = (count: number): Sent => ({
    headers: { 'content-type': 'application/cloudevents-batch+json' },
    body: JSON.stringify(
      Array.from({ length: count }, (_, i) =>
        ceOf({ ...cluster, metadata: { namespace: 'prod', name: `c${i}` } }).toJSON(),
      ),
    ),
  });

  const unauthorized: [string, string, number, RegExp][] = [
    ['no token', '', 401, /bearer token .* is required/],
    ['a token the API server does not authenticate', 'forged', 401, /not a valid Kubernetes token/],
    ['a valid token of another ServiceAccount', 'other', 403, /system:serviceaccount:default:web may not send/],
  ];
  for (const [what, token, status, reason] of unauthorized) {
    it(`answers ${status} and queues nothing for ${what}`, async () => {
      const res = await post(HTTP.binary(ceOf(cluster)), token);
      expect(res.status).to.equal(status);
      expect(((await res.json()) as { reason: string }).reason).to.match(reason);
      expect(queued).to.deep.equal([]);
    });
  }

  it('answers 503 with Retry-After when the token cannot be reviewed', async () => {
    apiDown = true;
    const res = await post(HTTP.binary(ceOf(cluster)));
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.equal('3');
    expect(queued).to.deep.equal([]);
  });

  it('answers 413 naming the limit and queues nothing when a batch holds more events than allowed', async () => {
    expect((await post(batchOf(3))).status).to.equal(202);
    queued = [];
    const res = await post(batchOf(4));
    expect(res.status).to.equal(413);
    expect(await res.json()).to.deep.include({ error: 'too-many-events' });
    expect(queued).to.deep.equal([]);
  });

  it('answers 503 queue-full with Retry-After and queues nothing while the queue is nearly full', async () => {
    full = true;
    const res = await post(HTTP.binary(ceOf(cluster)));
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.equal('3');
    expect(await res.json()).to.have.property('error', 'queue-full');
    expect(queued).to.deep.equal([]);
  });

  it('answers 202 and queues the key when an event comes in binary mode', async () => {
    const res = await post(HTTP.binary(ceOf(cluster)));
    expect(res.status).to.equal(202);
    expect(await res.json()).to.deep.equal({ keys: ['prod/cache'] });
    expect(queued).to.deep.equal(['prod/cache']);
  });

  it('answers 202 when an event comes in structured mode', async () => {
    const message = HTTP.structured(ceOf(cluster, 'delete'));
    expect(message.headers['content-type']).to.match(/application\/cloudevents\+json/);
    expect((await post(message)).status).to.equal(202);
    expect(queued).to.deep.equal(['prod/cache']);
  });

  it('queues each distinct key once when a batch comes in', async () => {
    const body = JSON.stringify(
      [
        ceOf(cluster),
        ceOf(cluster, 'delete'),
        ceOf({ ...cluster, metadata: { namespace: 'prod', name: 'other' } }),
      ].map((e) => e.toJSON()),
    );
    const res = await post({ headers: { 'content-type': 'application/cloudevents-batch+json' }, body });
    expect(res.status).to.equal(202);
    expect(queued).to.deep.equal(['prod/cache', 'prod/other']);
  });

  const refused: [string, () => Sent, RegExp][] = [
    [
      'malformed JSON in structured mode',
      () => ({ headers: { 'content-type': 'application/cloudevents+json' }, body: '{"specversion": "1.0", ' }),
      /not a CloudEvent/,
    ],
    [
      'no CloudEvent headers at all',
      () => ({ headers: { 'content-type': 'application/json' }, body: '{}' }),
      /not a CloudEvent/,
    ],
    [
      'a missing source',
      () => ({
        headers: {
          'content-type': 'application/json',
          'ce-id': '1',
          'ce-specversion': '1.0',
          'ce-type': 'dev.knative.apiserver.resource.add',
        },
        body: JSON.stringify(cluster),
      }),
      /invalid CloudEvent|not a CloudEvent/,
    ],
    [
      'an unsupported type',
      () => HTTP.binary(new CloudEvent({ id: '1', source: '/x', type: 'com.example.other', data: cluster })),
      /unsupported event type/,
    ],
    ['an object of no RedisCluster', () => HTTP.binary(ceOf(stranger)), /belongs to no RedisCluster/],
    [
      'a batch with one unrelated event',
      () => ({
        headers: { 'content-type': 'application/cloudevents-batch+json' },
        body: JSON.stringify([ceOf(cluster).toJSON(), ceOf(stranger).toJSON()]),
      }),
      /belongs to no RedisCluster/,
    ],
  ];
  for (const [what, message, reason] of refused) {
    it(`answers 400 with a JSON reason and queues nothing for ${what}`, async () => {
      const res = await post(message());
      expect(res.status).to.equal(400);
      const body = (await res.json()) as { error: string; reason: string };
      expect(body.reason).to.match(reason);
      expect(body.error).to.be.a('string');
      expect(queued).to.deep.equal([]);
    });
  }

  it('answers 413 and queues nothing when the body is too large', async () => {
    const big = { ...cluster, spec: { padding: 'x'.repeat(10_000) } };
    const res = await post(HTTP.binary(ceOf(big)));
    expect(res.status).to.equal(413);
    expect(await res.json()).to.have.property('error', 'too-large');
    expect(queued).to.deep.equal([]);
  });

  it('answers 503 with Retry-After when the queue cannot be reached', async () => {
    failing = true;
    const res = await post(HTTP.binary(ceOf(cluster)));
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.equal('3');
  });

  it('answers 503 queue-full when Redis refuses the write at its maxmemory', async () => {
    failing = 'oom';
    const res = await post(HTTP.binary(ceOf(cluster)));
    expect(res.status).to.equal(503);
    expect(await res.json()).to.have.property('error', 'queue-full');
  });

  it('tells of every 503 it answers (a resync is owed for it) and of nothing else', async () => {
    failing = true;
    expect((await post(HTTP.binary(ceOf(cluster)))).status).to.equal(503);
    full = true;
    expect((await post(HTTP.binary(ceOf(cluster)))).status).to.equal(503);
    expect(unavailable).to.equal(2);
    failing = full = false;
    expect((await post(HTTP.binary(ceOf(cluster)))).status).to.equal(202);
    expect((await post(HTTP.binary(ceOf(stranger)))).status).to.equal(400);
    expect(unavailable).to.equal(2);
  });

  it('answers 429 with the Retry-After of the review limit, and owes no resync for it', async () => {
    reviewsLimited = true;
    const res = await post(HTTP.binary(ceOf(cluster)));
    expect(res.status).to.equal(429);
    expect(res.headers.get('retry-after')).to.equal('4');
    expect(await res.json()).to.deep.include({ error: 'too-many-reviews' });
    expect(queued).to.deep.equal([]);
    expect(unavailable).to.equal(0);
  });

  it('answers 413 and queues nothing when a body of no stated length grows past the limit', async () => {
    const { headers } = HTTP.binary(ceOf(cluster));
    const chunks = [JSON.stringify(cluster).slice(0, -1), ',"padding":"', 'x'.repeat(5_000), '"}'];
    const body = new ReadableStream({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(chunk));
      },
    });
    const res = await fetch(server.url + '/', {
      method: 'POST',
      headers: { ...(headers as Record<string, string>), authorization: 'Bearer good' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).to.equal(413);
    expect(await res.json()).to.have.property('error', 'too-large');
    expect(queued).to.deep.equal([]);
  });

  it('answers 415 and queues nothing for a compressed body', async () => {
    const message = HTTP.binary(ceOf(cluster));
    const res = await post({ headers: { ...message.headers, 'content-encoding': 'gzip' }, body: message.body });
    expect(res.status).to.equal(415);
    expect(((await res.json()) as { reason: string }).reason).to.match(/content-encoding gzip is not accepted/);
    expect(queued).to.deep.equal([]);
  });

  it('answers the health probes', async () => {
    expect((await fetch(server.url + '/healthz')).status).to.equal(200);
    expect((await fetch(server.url + '/readyz')).status).to.equal(200);
  });
});
