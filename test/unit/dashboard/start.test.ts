import { expect } from 'chai';
import express from 'express';
import { start } from '../../../functions/dashboard/index.ts';
import { ConfigError, readConfig } from '../../../functions/start-config.ts';
import { createLogger } from '../../../shared/io/log.ts';
import { createRegistry } from '../../../shared/io/metrics.ts';

const startWith = (env: Record<string, string>) =>
  start({
    // Port 1: nothing listens; the refusals come before any connection is made.
    config: readConfig({ REDIS_URL: 'redis://127.0.0.1:1', ...env }),
    log: createLogger({ level: 'silent' }),
    expressApp: async () => express(),
    registry: createRegistry({ defaultMetrics: false }),
    env: {},
    addProbe: () => {},
    serveDirect: () => {},
  });

describe('dashboard start', () => {
  const refused: [string, Record<string, string>, RegExp][] = [
    ['no token and no opt-out', {}, /dashboard needs DASHBOARD_TOKEN .*DASHBOARD_AUTH=none/],
    ['a token and the opt-out at once', { DASHBOARD_TOKEN: 't', DASHBOARD_AUTH: 'none' }, /not both/],
  ];
  for (const [what, env, message] of refused)
    it(`refuses to start with ${what}`, async () => {
      const error = await startWith(env).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.match(message);
    });

  it('starts without a token when DASHBOARD_AUTH=none says so', async () => {
    const running = await startWith({ DASHBOARD_AUTH: 'none' });
    await running.close();
  });
});
