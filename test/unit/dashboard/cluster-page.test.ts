import { expect } from 'chai';
import type { RunRecord, StatusSnapshot } from '../../../shared/core/run-note.ts';
import { renderClusterPage } from '../../../functions/dashboard/cluster-page.ts';
import {
  attentionOf,
  describeNext,
  progressFraction,
  sortRows,
  type ClusterRow,
  type NextRun,
} from '../../../functions/dashboard/cluster-rows.ts';
import type { ClusterView } from '../../../functions/dashboard/cluster-view.ts';
import { runsChart } from '../../../functions/dashboard/charts.ts';
import { html } from '../../../functions/dashboard/html.ts';

const now = Date.parse('2026-12-03T08:00:00Z');
const links = { queues: '/admin/queues', queueName: 'reconcile', refreshS: 15 };
const resync: NextRun = { kind: 'resync', at: undefined };

function aRun(result: RunRecord['result'], extra: Partial<RunRecord> = {}): RunRecord {
  return { key: 'ns/c', jobId: '7', at: now - 1_000, durationMs: 12, result, ...extra };
}
function aRow(
  key: string,
  status: StatusSnapshot | undefined,
  runs: RunRecord[] = [],
  next: NextRun = resync,
): ClusterRow {
  return { key, status, runs, next };
}
const cond = (type: string, status: 'True' | 'False', reason = 'R') => ({
  type,
  status,
  reason,
  message: `${type} message`,
});
const readyStatus: StatusSnapshot = {
  phase: 'Running',
  slotsCovered: 16384,
  conditions: [cond('Ready', 'True'), cond('Degraded', 'False')],
};
const view = (rows: ClusterRow[]): ClusterView => ({ now, rows, timeline: [], depth: [], failedJobs: 0 });

describe('dashboard cluster view', () => {
  it('puts failing clusters first, then those with work in flight, then the ready ones', () => {
    const rows = [
      aRow('a/ready', readyStatus, [aRun('done')]),
      aRow('b/busy', { ...readyStatus, operation: { type: 'ScaleOut', progress: 'migrating slots: 1/2' } }, [
        aRun('requeue'),
      ]),
      aRow('c/degraded', { phase: 'Degraded', conditions: [cond('Degraded', 'True')] }),
      aRow('d/erroring', readyStatus, [aRun('retry', { error: 'boom' })]),
      aRow('e/never-run', undefined),
    ];
    expect(rows.map(attentionOf)).to.deep.equal(['ok', 'busy', 'failing', 'failing', 'busy']);
    expect(sortRows(rows).map((r) => r.key)).to.deep.equal([
      'c/degraded',
      'd/erroring',
      'b/busy',
      'e/never-run',
      'a/ready',
    ]);
  });

  it('says when a key runs next and why', () => {
    const table: [NextRun, string][] = [
      [{ kind: 'running', jobId: '1' }, 'running now'],
      [
        { kind: 'running', jobId: '1', then: { reason: 'event', delayMs: 0 } },
        'running now; then once more for a change',
      ],
      [
        { kind: 'running', jobId: '1', then: { reason: 'retry', delayMs: 2_000, failures: 3 } },
        'running now; then again after 2 s (backoff after failure 3)',
      ],
      [{ kind: 'queued', jobId: '1' }, 'queued, runs next'],
      [{ kind: 'delayed', jobId: '1', at: now + 4_200, reason: 'requeue' }, 'in 4.2 s (requeue-after)'],
      [
        { kind: 'delayed', jobId: '1', at: now + 60_000, reason: 'retry', failures: 2 },
        'in 1 min (backoff after failure 2)',
      ],
      [{ kind: 'delayed', jobId: '1', at: now - 5, reason: 'resync' }, 'due now (resync)'],
      [{ kind: 'resync', at: now + 180_000 }, 'on the next change, or the resync in 3 min'],
      [resync, 'on the next change or resync'],
    ];
    for (const [next, text] of table) expect(describeNext(next, now)).to.equal(text);
  });

  it('reads the progress of an operation as a fraction', () => {
    expect(progressFraction('migrating slots: 1200/5461')).to.deep.equal({ done: 1200, total: 5461 });
    expect(progressFraction('rolling update: 2 pod(s) to restart')).to.equal(undefined);
    expect(progressFraction('0/0')).to.equal(undefined);
  });

  it('escapes every value it shows, messages and errors included', () => {
    const evil = '<img src=x onerror=alert(1)> & "quoted"';
    const page = renderClusterPage(
      view([
        aRow('ns/c', { phase: 'Degraded', conditions: [{ ...cond('Degraded', 'True'), message: evil }] }, [
          aRun('retry', { error: evil, summary: evil }),
        ]),
      ]),
      links,
    );
    expect(page).not.to.contain('<img');
    expect(page).to.contain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;');
    expect(html`<a title="${'"><b>'}">${['<i>', html`<i>`]}</a>`.text).to.equal(
      '<a title="&quot;&gt;&lt;b&gt;">&lt;i&gt;<i></a>',
    );
  });

  it('links a row and each of its runs to the job in bull-board', () => {
    const page = renderClusterPage(
      view([
        aRow('ns/c', readyStatus, [aRun('done', { jobId: '12' }), aRun('requeue', { jobId: '9' })], {
          kind: 'delayed',
          jobId: '13',
          at: now,
          reason: 'requeue',
        }),
      ]),
      links,
    );
    expect(page).to.contain('<a class="jobs" href="/admin/queues/queue/reconcile/13">');
    expect(page)
      .to.contain('href="/admin/queues/queue/reconcile/12"')
      .and.contain('href="/admin/queues/queue/reconcile/9"');
  });

  it('counts the last hour of runs a minute a bar, by outcome', () => {
    const runs = [
      { at: now - 10_000, result: 'done' as const },
      { at: now - 20_000, result: 'retry' as const },
      { at: now - 30 * 60_000, result: 'requeue' as const },
      { at: now - 61 * 60_000, result: 'done' as const },
    ];
    const svg = runsChart(runs, now).text;
    expect(svg).to.contain('runs in the last hour: 1 ok, 1 requeued, 1 failed (peak 2 a minute)');
    expect(svg.match(/<rect x=/g)).to.have.length(3);
  });
});
