// The dashboard in real Chromium: three RedisClusters' runs go through a real queue worker
// on a real redis-server (a Ready cluster, one mid-migration, one whose auth Secret is
// missing), and a person opens bull-board and the cluster view. Screenshots of each cluster
// are written to test-output/dashboard/ for review.
import { expect } from 'chai';
import { waitFor } from '../../support/wait-for.ts';
import { computeStatus } from '../../../shared/core/reconcile/status.ts';
import type { Page } from 'playwright-core';
import { done, noted, requeueAfter, TransientError, type Outcome } from '../../../shared/core/outcome.ts';
import { snapshotOf, type StatusSnapshot } from '../../../shared/core/run-note.ts';
import type { Listening } from '../../../shared/io/http.ts';
import { createLogger } from '../../../shared/io/log.ts';
import type { ReconcileQueue } from '../../../shared/io/queue/reconcile-queue.ts';
import type { RunLog } from '../../../shared/io/queue/run-log.ts';
import { clustersPath } from '../../../functions/dashboard/app.ts';
import { startDepthSampler } from '../../../functions/dashboard/depth-sampler.ts';
import { startBrowser, type Browser } from './chromium.ts';
import { startDashboardStack, type DashboardStack } from './dashboard-stack.ts';
import { uniqueNames } from './harness.ts';

const ready = 'prod/orders-cache';
const migrating = 'prod/sessions';
const failing = 'staging/catalog';
const missingSecret = 'Secret catalog-auth with key password (spec.auth.secretRef) was not found';

const condition = (type: string, status: 'True' | 'False', reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
});

const readyStatus: StatusSnapshot = {
  phase: 'Running',
  slotsCovered: 16384,
  readyNodes: 6,
  conditions: [
    condition('Ready', 'True', 'ClusterReady', 'all 6 nodes ready, 16384 slots covered'),
    condition('Progressing', 'False', 'Idle', 'no operation in progress'),
    condition('Degraded', 'False', 'AsExpected', 'no problem seen'),
  ],
};

/** A scale-out from 3 to 4 masters, `moved` slots of 5461 moved so far. */
function migratingStatus(moved: number): StatusSnapshot {
  const progress = `migrating slots: ${moved}/5461`;
  return {
    phase: 'Scaling',
    slotsCovered: 16384,
    readyNodes: 8,
    operation: { type: 'ScaleOut', progress, startedAt: '2026-12-03T07:00:00.000Z' },
    conditions: [
      condition('Ready', 'False', 'OperationInProgress', `8/8 nodes ready, 16384/16384 slots covered: ${progress}`),
      condition('Progressing', 'True', 'ScalingOut', progress),
      condition('Degraded', 'False', 'AsExpected', 'no problem seen'),
    ],
  };
}

/** The status the reconciler writes for a missing auth Secret, from its own pure function. */
const noSecretStatus = snapshotOf(
  computeStatus({
    name: 'catalog',
    generation: 1,
    previous: undefined,
    expectedPods: 6,
    pods: [],
    topology: undefined,
    plan: undefined,
    paused: false,
    error: missingSecret,
    now: new Date().toISOString(),
  }),
);

/** Each key's runs, in order: what the reconciler decides for these three clusters. */
function scriptedReconcile() {
  const runs = new Map<string, number>();
  return async (key: string): Promise<Outcome> => {
    const n = (runs.get(key) ?? 0) + 1;
    runs.set(key, n);
    if (key === ready) return noted(done(), { summary: 'cluster is ready', status: readyStatus });
    if (key === migrating) {
      const status = migratingStatus(400 * n);
      const summary = `${status.operation!.progress}; migrate 400 slot(s) in 1 move(s): rebalance onto sessions-3`;
      return noted(requeueAfter(n < 3 ? 50 : 3_600_000), { summary, status });
    }
    // The first pass writes the status; later ones fail while the Secret is still missing.
    if (n === 1) return noted(requeueAfter(50), { summary: missingSecret, status: noSecretStatus });
    throw new TransientError(missingSecret);
  };
}

describe('dashboard', function () {
  this.timeout(120_000);
  const token = 'test-token-not-secret';
  const names = uniqueNames('dash');
  let stack: DashboardStack;
  let queue: ReconcileQueue;
  let runs: RunLog;
  let server: Listening;
  let sampler: { stop(): void };
  let browser: Browser;

  before(async () => {
    browser = await startBrowser(token);
    stack = await startDashboardStack({
      names,
      token,
      reconcile: scriptedReconcile(),
      settings: {
        concurrency: 2,
        timeoutMs: 10_000,
        lockDurationMs: 5_000,
        stalledIntervalMs: 2_000,
        maxStalledCount: 5,
        backoff: { baseMs: 500, maxMs: 600_000, jitter: 0 },
      },
    });
    ({ queue, runs, server } = stack);
    // Three events for the Ready cluster, one after the other (three runs); one for the others.
    for (const key of [ready, migrating, failing]) await queue.enqueue(key);
    for (let i = 2; i <= 3; i++) {
      await waitFor(async () => (await historyOf(ready)).length === i - 1, { what: `run ${i - 1} of ${ready}` });
      await queue.enqueue(ready);
    }
    await waitFor(async () => (await historyOf(ready)).length === 3, { what: `three runs of ${ready}` });
    await waitFor(async () => (await historyOf(migrating)).length === 3, { what: `three runs of ${migrating}` });
    await waitFor(async () => (await historyOf(failing)).length >= 3, { what: `three runs of ${failing}` });
    sampler = startDepthSampler(queue.bull, runs, 200, createLogger({ level: 'silent' }));
    await waitFor(async () => (await runs.read(Date.now())).depth.length >= 3, { what: 'three depth samples' });
  });
  after(async () => {
    sampler?.stop();
    await browser?.close();
    await stack?.close();
  });

  const historyOf = async (key: string) => (await runs.read(Date.now())).keys.find((k) => k.key === key)?.runs ?? [];

  const open = (path: string) => browser.open(`${server.url}${path}`);
  const screenshot = (page: Page, name: string) => browser.screenshot(page, name);

  it('refuses bull-board and the cluster view without the bearer token', async () => {
    for (const path of ['/admin/queues', clustersPath]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).to.equal(401);
      expect(await res.json()).to.have.property('error', 'unauthorized');
    }
  });

  it('lists the jobs in bull-board by cluster key, with the run outcome as return value', async () => {
    const completed = await queue.bull.getCompleted();
    const last = completed.find((job) => job.name === migrating && job.returnvalue?.outcome === 'requeue after 1 h');
    expect(last?.returnvalue).to.deep.equal({
      outcome: 'requeue after 1 h',
      phase: 'Scaling',
      summary: 'migrating slots: 1200/5461; migrate 400 slot(s) in 1 move(s): rebalance onto sessions-3',
    });
    const failed = (await queue.bull.getFailed()).filter((job) => job.name === failing);
    expect(failed[0]?.failedReason).to.equal(missingSecret);

    const page = await open(`/admin/queues/queue/${encodeURIComponent(names.queue)}?status=completed`);
    await page.getByText(migrating).first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    for (const key of [ready, migrating, failing]) expect(text).to.contain(key);
    expect(text).not.to.match(/^reconcile$/m);
    await screenshot(page, 'bull-board-completed');
  });

  it('shows one row per cluster, the failing one first, each as a person reads it', async () => {
    const page = await open(clustersPath);
    const rows = page.locator('tbody tr.row');
    await rows.first().waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')))).to.deep.equal([
      failing,
      migrating,
      ready,
    ]);
    await screenshot(page, 'clusters');

    // The failing cluster: the error a user can act on, the backoff before the next try.
    const bad = page.locator(`tr[data-key="${failing}"]`);
    const badText = await bad.innerText();
    expect(badText).to.contain('Creating').and.contain(`Degraded True ReconcileError\n${missingSecret}`);
    expect(badText).to.match(/error, retry after [\d.]+ s \(failure \d+\): Secret catalog-auth with key password/);
    // The key keeps retrying while the page loads: any moment of its backoff cycle is right.
    expect(badText).to.match(
      /in [\d.]+ (ms|s|min) \(backoff after failure \d+\)|running now|due now|queued, runs next/,
    );

    // Mid-migration: the operation, its progress (and bar), the requeue-after.
    const busy = page.locator(`tr[data-key="${migrating}"]`);
    const busyText = await busy.innerText();
    expect(busyText).to.contain('Scaling').and.contain('ScaleOut').and.contain('migrating slots: 1200/5461');
    expect(busyText)
      .to.contain('16384/16384')
      .and.contain('requeue after 1 h')
      .and.match(/in (59\.\d|60) min \(requeue-after\)/);
    expect(await busy.locator('.bar i').last().getAttribute('style')).to.equal('width:22.0%');

    // Ready: conditions all good, the last run done, three runs kept.
    const good = page.locator(`tr[data-key="${ready}"]`);
    const goodText = await good.innerText();
    expect(goodText)
      .to.contain('Running')
      .and.contain('Ready True ClusterReady')
      .and.contain('done')
      .and.contain('cluster is ready');
    expect(goodText).to.contain('on the next change or resync');
    expect(await good.locator('.strip .dot').count()).to.equal(2);

    // Each row links to its cluster's job in bull-board, which shows that job.
    const href = await busy.locator('a.jobs').getAttribute('href');
    expect(href).to.match(new RegExp(`^/admin/queues/queue/${names.queue}/.+`));

    // The charts: an hour of runs (each outcome counted) and queue depth samples.
    const charts = await page
      .locator('svg[role=img]')
      .evaluateAll((svgs) => svgs.map((s) => s.getAttribute('aria-label')));
    // Ready: 3 done; migrating: 3 requeues; failing: 1 requeue, then failures (still retrying).
    expect(charts[0]).to.match(/^runs in the last hour: 3 ok, 4 requeued, ([2-9]|\d\d+) failed/);
    expect(Number(/^queue depth over the last hour: (\d+) samples/.exec(charts[1] ?? '')?.[1])).to.be.at.least(3);
  });

  it('shows each cluster alone at ?key=, for a screenshot or a link', async () => {
    for (const [key, name, expected] of [
      [ready, 'ready', 'Running'],
      [migrating, 'mid-migration', 'migrating slots: 1200/5461'],
      [failing, 'failing-auth-secret', missingSecret],
    ] as const) {
      const page = await open(`${clustersPath}?key=${encodeURIComponent(key)}`);
      const rows = page.locator('tbody tr.row');
      expect(await rows.count()).to.equal(1);
      expect(await rows.innerText()).to.contain(expected);
      await screenshot(page, name);
    }
  });

  it('escapes what it shows and never offers an action', async () => {
    const res = await fetch(`${server.url}${clustersPath}`, { headers: { authorization: `Bearer ${token}` } });
    const page = await res.text();
    expect(res.headers.get('content-security-policy')).to.contain("default-src 'none'");
    expect(page).not.to.match(/<script|<form|<button|method=/i);
  });

  it('exports the queue counts on /metrics under the workqueue and bullmq names', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).to.match(new RegExp(`workqueue_depth\\{name="${names.queue}"\\} \\d+`));
    // Three runs of the Ready cluster, three of the migrating one, the first of the failing one.
    expect(text).to.match(new RegExp(`bullmq_jobs\\{queue="${names.queue}",state="completed"\\} 7`));
  });
});
