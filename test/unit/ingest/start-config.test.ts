import { expect } from 'chai';
import { ConfigError, readConfig } from '../../../functions/start-config.ts';

describe('start-config', () => {
  it('fills defaults and freezes the result when the environment is empty', () => {
    const config = readConfig({});
    expect(config).to.include({ port: 8080, host: '127.0.0.1', queueRedis: undefined });
    expect(config.worker.backoff).to.deep.equal({ baseMs: 1000, maxMs: 300000, jitter: 0.2 });
    expect(Object.isFrozen(config.worker.backoff)).to.equal(true);
    expect(config.dashboard.readOnly).to.equal(true);
    expect(config.eventSource.concurrency).to.equal(16);
  });

  it('reports every invalid setting at once', () => {
    try {
      readConfig({
        PORT: 'abc',
        REDIS_URL: 'http://x',
        WORKER_CONCURRENCY: '0',
        EVENT_SOURCE_CONCURRENCY: '0',
        BACKOFF_BASE_MS: '500',
        BACKOFF_MAX_MS: '100',
      });
      expect.fail('no error');
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      const message = (error as Error).message;
      for (const name of ['PORT', 'REDIS_URL', 'WORKER_CONCURRENCY', 'EVENT_SOURCE_CONCURRENCY', 'invalid backoff'])
        expect(message).to.contain(name);
    }
  });

  describe("the queue's Redis", () => {
    const hosts = [
      { host: '10.0.0.1', port: 6379 },
      { host: 'redis-1.example', port: 7000 },
    ];
    for (const [what, env, queueRedis, prefix] of [
      ['one server', { REDIS_URL: 'redis://q:6379' }, { mode: 'single', url: 'redis://q:6379' }, 'knredis'],
      [
        'a cluster, its prefix tagged',
        { REDIS_CLUSTER_NODES: '10.0.0.1:6379, redis-1.example:7000', REDIS_PASSWORD: 'pw' },
        { mode: 'cluster', nodes: hosts, password: 'pw' },
        '{knredis}',
      ],
      [
        'a cluster with a tagged prefix',
        { REDIS_CLUSTER_NODES: '[::1]:7000', QUEUE_PREFIX: '{team}:kn' },
        { mode: 'cluster', nodes: [{ host: '::1', port: 7000 }] },
        '{team}:kn',
      ],
      [
        'sentinels',
        {
          REDIS_SENTINELS: '10.0.0.1:6379,redis-1.example:7000',
          REDIS_SENTINEL_NAME: 'queue',
          REDIS_SENTINEL_PASSWORD: 'spw',
        },
        { mode: 'sentinel', sentinels: hosts, name: 'queue', sentinelPassword: 'spw' },
        'knredis',
      ],
    ] as const)
      it(`reads ${what}`, () => {
        const config = readConfig(env);
        expect(config.queueRedis).to.deep.equal(queueRedis);
        expect(config.queue.prefix).to.equal(prefix);
      });

    for (const [what, env, message] of [
      [
        'two ways at once',
        { REDIS_URL: 'redis://q:6379', REDIS_CLUSTER_NODES: 'q:6379' },
        'set only one of REDIS_URL, REDIS_CLUSTER_NODES',
      ],
      ['a node without a port', { REDIS_CLUSTER_NODES: 'q:6379,r' }, 'REDIS_CLUSTER_NODES must be a comma-separated'],
      ['a port out of range', { REDIS_SENTINELS: 'q:70000', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINELS must be'],
      ['sentinels without a name', { REDIS_SENTINELS: 'q:26379' }, 'REDIS_SENTINELS needs REDIS_SENTINEL_NAME'],
      ['a name without sentinels', { REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINEL_NAME needs REDIS_SENTINELS'],
      [
        'a cluster prefix whose braces make no tag',
        { REDIS_CLUSTER_NODES: 'q:6379', QUEUE_PREFIX: 'kn{}' },
        'has braces but no hash tag',
      ],
    ] as const)
      it(`refuses ${what}`, () => {
        expect(() => readConfig(env)).to.throw(ConfigError, message);
      });

    it('names the password in no error', () => {
      expect(() => readConfig({ REDIS_CLUSTER_NODES: 'q', REDIS_PASSWORD: 'hunter2' }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.does.not.contain('hunter2');
    });
  });

  it("authenticates ingest senders by default: TokenReview, the knredis audience, the two runtimes' senders", () => {
    const { auth } = readConfig({ POD_NAMESPACE: 'ops' }).ingest;
    expect(auth).to.deep.include({ mode: 'tokenreview', audience: 'knredis-ingest' });
    expect(auth.mode === 'tokenreview' && auth.allowedSubjects).to.deep.equal([
      'system:serviceaccount:ops:knredis-event-source',
      'system:serviceaccount:ops:knredis-oidc-sources.knative.dev-apiserversource',
      'system:serviceaccount:ops:knredis-secrets-oidc-sources.knative.dev-apiserversource',
    ]);
    expect(readConfig({}).eventSource.tokenFile).to.equal('/var/run/secrets/knredis/ingest/token');
  });

  const ingestCases: [string, Record<string, string>, (c: ReturnType<typeof readConfig>) => unknown, unknown][] = [
    ['INGEST_AUTH=none', { INGEST_AUTH: 'none' }, (c) => c.ingest.auth, { mode: 'none' }],
    [
      'INGEST_ALLOWED_SUBJECTS',
      { INGEST_ALLOWED_SUBJECTS: ' a , b ,' },
      (c) => c.ingest.auth.mode === 'tokenreview' && c.ingest.auth.allowedSubjects,
      ['a', 'b'],
    ],
    [
      'INGEST_AUDIENCE',
      { INGEST_AUDIENCE: 'x' },
      (c) => c.ingest.auth.mode === 'tokenreview' && c.ingest.auth.audience,
      'x',
    ],
    [
      'the review limit, by default',
      {},
      (c) => c.ingest.auth.mode === 'tokenreview' && c.ingest.auth.reviewLimit,
      { ratePerS: 1, burst: 10 },
    ],
    [
      'INGEST_AUTH_REVIEW_RATE and INGEST_AUTH_REVIEW_BURST',
      { INGEST_AUTH_REVIEW_RATE: '0.2', INGEST_AUTH_REVIEW_BURST: '3' },
      (c) => c.ingest.auth.mode === 'tokenreview' && c.ingest.auth.reviewLimit,
      { ratePerS: 0.2, burst: 3 },
    ],
    ['INGEST_MAX_EVENTS', { INGEST_MAX_EVENTS: '7' }, (c) => c.ingest.maxEvents, 7],
    ['INGEST_QUEUE_HIGH_WATER', { INGEST_QUEUE_HIGH_WATER: '0.5' }, (c) => c.ingest.queueHighWater, 0.5],
    ['EVENT_SOURCE_TOKEN_FILE=none', { EVENT_SOURCE_TOKEN_FILE: 'none' }, (c) => c.eventSource.tokenFile, undefined],
    ['DASHBOARD_AUTH default', {}, (c) => c.dashboard.auth, 'token'],
  ];
  for (const [what, env, pick, expected] of ingestCases)
    it(`reads ${what}`, () => expect(pick(readConfig(env))).to.deep.equal(expected));

  it('puts REDIS_PASSWORD, or the content of REDIS_PASSWORD_FILE, into the Redis URL', () => {
    const url = (env: Record<string, string>) =>
      (readConfig({ REDIS_URL: 'redis://q:6379', ...env }, () => 'p@ss/w:rd\n').queueRedis as { url: string }).url;
    expect(new URL(url({ REDIS_PASSWORD: 's3cret' })).password).to.equal('s3cret');
    expect(decodeURIComponent(new URL(url({ REDIS_PASSWORD_FILE: '/run/pw' })).password)).to.equal('p@ss/w:rd');
    expect(url({})).to.equal('redis://q:6379');
    const cluster = readConfig({ REDIS_CLUSTER_NODES: 'q:6379', REDIS_PASSWORD_FILE: '/run/pw' }, () => 'pw\n');
    expect(cluster.queueRedis).to.deep.include({ password: 'pw' });
  });

  const refused: [string, Record<string, string>, RegExp][] = [
    ['an unknown INGEST_AUTH', { INGEST_AUTH: 'off' }, /INGEST_AUTH must be one of tokenreview, none/],
    ['a high-water mark above 1', { INGEST_QUEUE_HIGH_WATER: '1.5' }, /INGEST_QUEUE_HIGH_WATER must be in/],
    ['INGEST_MAX_EVENTS=0', { INGEST_MAX_EVENTS: '0' }, /INGEST_MAX_EVENTS must be an integer >= 1/],
    ['a review rate of 0', { INGEST_AUTH_REVIEW_RATE: '0' }, /INGEST_AUTH_REVIEW_RATE must be a number > 0/],
    ['a review burst of 0', { INGEST_AUTH_REVIEW_BURST: '0' }, /INGEST_AUTH_REVIEW_BURST must be an integer >= 1/],
    ['both REDIS_PASSWORD and its file', { REDIS_PASSWORD: 'a', REDIS_PASSWORD_FILE: '/x' }, /not both/],
    [
      'a password in REDIS_URL and REDIS_PASSWORD',
      { REDIS_URL: 'redis://:old@q', REDIS_PASSWORD: 'new' },
      /holds a password/,
    ],
  ];
  for (const [what, env, message] of refused)
    it(`refuses ${what}`, () => expect(() => readConfig(env, () => 'pw')).to.throw(ConfigError, message));

  it('names an unreadable password file without showing any secret', () => {
    const read = () => {
      throw Object.assign(new Error('no'), { code: 'ENOENT' });
    };
    expect(() => readConfig({ REDIS_URL: 'redis://q', REDIS_PASSWORD_FILE: '/run/pw' }, read)).to.throw(
      ConfigError,
      'REDIS_PASSWORD_FILE: cannot read /run/pw (ENOENT)',
    );
    try {
      readConfig({ REDIS_URL: 'redis://q', REDIS_PASSWORD: 'hunter2', INGEST_AUTH: 'bad' });
    } catch (error) {
      expect((error as Error).message).to.not.contain('hunter2');
    }
  });
});
