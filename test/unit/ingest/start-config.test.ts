import { expect } from 'chai';
import { ConfigError, readConfig } from '../../../functions/start-config.ts';

describe('start-config', () => {
  it('fills defaults and freezes the result when the environment is empty', () => {
    const config = readConfig({});
    expect(config).to.include({ port: 8080, host: '127.0.0.1', redisUrl: undefined });
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
});
