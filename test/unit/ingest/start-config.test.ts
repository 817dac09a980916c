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
});
