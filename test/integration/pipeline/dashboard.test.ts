import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import { requireCommand } from '../../support/prerequisites.ts';
import { createHttpApp, listen, type Listening } from '../../../shared/io/http.ts';
import { createRegistry, registerQueueGauges } from '../../../shared/io/metrics.ts';
import { producerConnection } from '../../../shared/io/queue/connection.ts';
import { createReconcileQueue, type ReconcileQueue } from '../../../shared/io/queue/reconcile-queue.ts';
import { dashboardRouter } from '../../../functions/dashboard/app.ts';
import { uniqueNames } from './harness.ts';

describe('dashboard', function () {
  this.timeout(120_000);
  const token = 'test-token-not-secret';
  let redis: RedisServer;
  let queue: ReconcileQueue;
  let server: Listening;
  let browser: BrowserContext | undefined;
  let profile: string;
  const names = uniqueNames('dash');

  before(async () => {
    requireCommand('chromium', 'apt-get install chromium');
    redis = await startRedis();
    queue = createReconcileQueue({ connection: producerConnection(redis.url), names });
    for (const key of ['prod/cache-a', 'prod/cache-b', 'staging/cache-c']) await queue.enqueue(key);
    const registry = createRegistry({ defaultMetrics: false });
    registerQueueGauges(registry, names.queue, () => queue.bull.getJobCounts());
    const app = createHttpApp({ registry });
    app.use(dashboardRouter({ queue: queue.bull, readOnly: true, token }));
    server = await listen(app, 0);
    profile = await mkdtemp(join(tmpdir(), 'knredis-chromium-'));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await queue?.close();
    await redis?.stop();
    await rm(profile, { recursive: true, force: true });
  });

  it('refuses the dashboard without the bearer token', async () => {
    const res = await fetch(`${server.url}/admin/queues`);
    expect(res.status).to.equal(401);
    expect(await res.json()).to.have.property('error', 'unauthorized');
  });

  it('shows the reconcile queue and its waiting jobs in Chromium', async () => {
    // A fresh profile directory (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      extraHTTPHeaders: { authorization: `Bearer ${token}` },
    });
    const page = await browser.newPage();
    await page.goto(`${server.url}/admin/queues/queue/${encodeURIComponent(names.queue)}?status=waiting`);
    await page.getByText('prod/cache-a').first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    expect(text).to.contain(names.queue);
    for (const key of ['prod/cache-a', 'prod/cache-b', 'staging/cache-c']) expect(text).to.contain(key);
    await page.screenshot({ path: '/tmp/knredis-dashboard.png', fullPage: true });
  });

  it('exports the queue counts on /metrics under the workqueue and bullmq names', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).to.match(new RegExp(`workqueue_depth\\{name="${names.queue}"\\} 3`));
    expect(text).to.match(new RegExp(`bullmq_jobs\\{queue="${names.queue}",state="waiting"\\} 3`));
  });
});
