// Ingest accepts events only from its senders: the real ingest function, its tokens reviewed
// by the real local API server (TokenReview), tokens from the TokenRequest API. A forged or
// unauthenticated event is refused and nothing of it is queued; a flood of unknown tokens
// costs the API server no more than the review limit.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { CloudEvent, HTTP } from 'cloudevents';
import { Queue } from 'bullmq';
import { createLogger } from '../../../shared/io/log.ts';
import { eventAttributes } from '../../../shared/core/apiserver-events.ts';
import { readConfig } from '../../../functions/start-config.ts';
import { requestToken } from '../../../infra/local/sender-token.ts';
import { localEnvironment, type LocalEnvironment } from '../../support/local-env.ts';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import { serveIngest, uniqueNames } from './harness.ts';

describe('ingest authenticates its senders with TokenReview', function () {
  this.timeout(180_000);
  const names = uniqueNames('ingest-auth');
  const logLines: string[] = [];
  let env: LocalEnvironment;
  let redis: RedisServer;
  let ingest: Awaited<ReturnType<typeof serveIngest>>;
  let queue: Queue;
  let tokens: Record<string, string>;

  before(async () => {
    env = await localEnvironment();
    redis = await startRedis();
    const kc = env.kubeConfig();
    const other = `other-${randomUUID().slice(0, 6)}`;
    tokens = {
      sender: await requestToken(kc),
      otherAccount: await requestToken(kc, { namespace: 'default', serviceAccount: other }),
      otherAudience: await requestToken(kc, { audience: 'https://kubernetes.default.svc.cluster.local' }),
    };
    // A token as the sender's would look, its signature made up: only the API server can tell.
    const [header, payload] = tokens.sender!.split('.');
    tokens.forged = `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`;
    const destination = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    ingest = await serveIngest(
      readConfig({
        KUBECONFIG: env.kubeconfigPath,
        REDIS_URL: redis.url,
        QUEUE_PREFIX: names.prefix,
        QUEUE_NAME: names.queue,
        // The bucket does not refill during the suite: what the flood may cost is the burst.
        INGEST_AUTH_REVIEW_RATE: '0.001',
      }),
      createLogger({ level: 'info', destination }),
    );
    queue = new Queue(names.queue, { connection: { host: redis.host, port: redis.port }, prefix: names.prefix });
  });
  after(async () => {
    await ingest?.close();
    await queue?.close();
    await redis?.stop();
  });

  const post = (name: string, token?: string) => {
    const { data, ...attributes } = eventAttributes(
      { apiVersion: 'cache.redis.io/v1beta1', kind: 'RedisCluster', metadata: { namespace: 'auth', name } },
      'update',
    );
    const message = HTTP.binary(new CloudEvent({ id: randomUUID(), source: 'https://127.0.0.1', ...attributes, data }));
    return fetch(ingest.url + '/', {
      method: 'POST',
      headers: {
        ...(message.headers as Record<string, string>),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: String(message.body),
    });
  };
  const queued = async () => (await queue.getJobs(['waiting', 'prioritized', 'delayed'])).map((j) => j?.data?.key);

  it("accepts an event with the event source's own ServiceAccount token", async () => {
    const res = await post('accepted', tokens.sender);
    expect(res.status).to.equal(202);
    expect(await queued()).to.include('auth/accepted');
  });

  const refused: [string, string | undefined, number][] = [
    ['no token', undefined, 401],
    ['a forged token', 'forged', 401],
    ["the sender's token for another audience", 'otherAudience', 401],
    ['a valid token of another ServiceAccount', 'otherAccount', 403],
  ];
  for (const [what, token, status] of refused)
    it(`refuses ${what} with ${status}, queues nothing, and logs the refusal without the token`, async () => {
      const name = `refused-${status}-${token ?? 'none'}`.toLowerCase();
      const res = await post(name, token ? tokens[token] : undefined);
      expect(res.status).to.equal(status);
      expect(await queued()).to.not.include(`auth/${name}`);
      expect(logLines.join('')).to.contain('event refused');
      for (const t of Object.values(tokens)) expect(logLines.join('')).to.not.contain(t.split('.')[2]);
    });

  it("answers 429 to a flood of unknown tokens beyond the review burst, without asking the API server, and still accepts the sender's events", async () => {
    const before = await tokenReviews();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await post(`flood-${i}`, `${tokens.forged}${i}`);
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).to.be.at.least(1);
    }
    const reviewed = statuses.filter((s) => s === 401).length;
    expect(statuses, 'some reviewed (the burst left), then 429').to.deep.equal([
      ...Array<number>(reviewed).fill(401),
      ...Array<number>(20 - reviewed).fill(429),
    ]);
    expect(reviewed).to.be.below(10);
    expect((await tokenReviews()) - before, 'TokenReviews the API server answered').to.equal(reviewed);
    expect((await post('after-flood', tokens.sender)).status).to.equal(202);
  });

  /** TokenReviews the API server answered so far (its apiserver_request_total). */
  async function tokenReviews(): Promise<number> {
    const metrics = await env.kubectl(['get', '--raw', '/metrics']);
    return metrics
      .split('\n')
      .filter((line) => line.startsWith('apiserver_request_total{') && line.includes('resource="tokenreviews"'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  }
});
