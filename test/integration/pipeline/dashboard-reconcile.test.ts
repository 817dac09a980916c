// The cluster view fed by the real reconciler: a RedisCluster on the real API server whose
// auth Secret is missing, reconciled by the real queue worker; what a person sees in Chromium,
// and the row going away once the RedisCluster is deleted.
import { expect } from 'chai';
import { installApi, type InstalledApi } from '../api/api-fixture.ts';
import { waitFor } from '../../support/wait-for.ts';
import { createReconcile } from '../../../functions/reconcile/reconcile.ts';
import { clustersPath } from '../../../functions/dashboard/app.ts';
import type { Listening } from '../../../shared/io/http.ts';
import type { ReconcileQueue } from '../../../shared/io/queue/reconcile-queue.ts';
import type { RunLog } from '../../../shared/io/queue/run-log.ts';
import { startBrowser, type Browser } from './chromium.ts';
import { startDashboardStack, type DashboardStack } from './dashboard-stack.ts';
import { uniqueNames } from './harness.ts';

describe('dashboard with the real reconciler', function () {
  this.timeout(180_000);
  const token = 'test-token-not-secret';
  const names = uniqueNames('dashrec');
  let api: InstalledApi;
  let ns: string;
  let stack: DashboardStack;
  let queue: ReconcileQueue;
  let runs: RunLog;
  let server: Listening;
  let browser: Browser;

  before(async () => {
    browser = await startBrowser(token);
    api = await installApi('knredis-dashboard-test');
    ns = await api.namespace(`dash-${names.queue.slice(-8)}`);
    stack = await startDashboardStack({
      names,
      token,
      reconcile: createReconcile({ kubeConfig: api.env.kubeConfig() }),
      settings: {
        concurrency: 1,
        timeoutMs: 30_000,
        lockDurationMs: 10_000,
        stalledIntervalMs: 5_000,
        maxStalledCount: 5,
        backoff: { baseMs: 1_000, maxMs: 10_000, jitter: 0 },
      },
    });
    ({ queue, runs, server } = stack);
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
    await api?.stop();
  });

  const rowsOf = async () => (await runs.read(Date.now())).keys;

  it('shows a RedisCluster whose auth Secret is missing as failing, with what to fix', async () => {
    const key = `${ns}/catalog`;
    await api.env.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'cache.redis.io/v1beta1',
        kind: 'RedisCluster',
        metadata: { name: 'catalog', namespace: ns },
        spec: { masters: 3, replicasPerMaster: 1, auth: { secretRef: { name: 'catalog-auth', key: 'password' } } },
      }),
    });
    await queue.enqueue(key);
    await waitFor(async () => (await rowsOf()).find((h) => h.key === key)?.status?.phase, {
      what: `a run of ${key} with its status`,
    });

    const page = await browser.open(`${server.url}${clustersPath}?key=${encodeURIComponent(key)}`);
    const row = page.locator(`tr[data-key="${key}"]`);
    const text = await row.innerText();
    const message = 'Secret catalog-auth with key password (spec.auth.secretRef) was not found';
    expect(text).to.contain('Creating').and.contain(`Degraded True ReconcileError\n${message}`);
    expect(text)
      .to.contain('requeue after 10 s')
      .and.contain(message)
      .and.match(/in [\d.]+ s \(requeue-after\)|running now|due now/);
    expect(await row.getAttribute('class')).to.contain('failing');
    await browser.screenshot(page, 'failing-auth-secret-real-reconcile');
    // What the real reconcile returned is what bull-board shows for the job.
    const [job] = (await queue.bull.getCompleted()).filter((j) => j.name === key);
    expect(job?.returnvalue).to.deep.equal({ outcome: 'requeue after 10 s', summary: message, phase: 'Creating' });
  });

  it('moves on once the Secret exists, and never shows the password', async () => {
    const key = `${ns}/catalog`;
    const password = 'correct-horse-battery-staple';
    await api.env.kubectl([
      'create',
      'secret',
      'generic',
      'catalog-auth',
      '-n',
      ns,
      `--from-literal=password=${password}`,
    ]);
    await queue.enqueue(key);
    const page = await browser.open(`${server.url}${clustersPath}`);
    await waitFor(
      async () => {
        await page.reload();
        return /waiting for pods: \d\/6 ready/.test(await page.locator(`tr[data-key="${key}"]`).innerText());
      },
      { what: `${key} waiting for its pods`, interval: 500 },
    );
    expect(await page.content()).not.to.contain(password);
    const jobs = await queue.bull.getJobs(['completed', 'failed', 'delayed', 'waiting', 'active']);
    expect(JSON.stringify(jobs.map((j) => [j.data, j.returnvalue, j.failedReason]))).not.to.contain(password);
  });

  it('drops the row once the RedisCluster is gone', async () => {
    const key = `${ns}/catalog`;
    await api.env.kubectl(['delete', 'rediscluster', 'catalog', '-n', ns, '--wait=false']);
    await waitFor(
      async () => {
        await queue.enqueue(key); // the event the deletion would send
        return (await rowsOf()).every((h) => h.key !== key);
      },
      { what: `${key} gone from the cluster view`, interval: 500 },
    );
    // Once the runs queued meanwhile have found it gone too, nothing shows it.
    const page = async () =>
      (await fetch(`${server.url}${clustersPath}`, { headers: { authorization: `Bearer ${token}` } })).text();
    await waitFor(async () => !(await page()).includes(key), { what: `${key} gone from the page` });
    expect(await page()).to.contain('No RedisCluster has run yet.');
  });
});
