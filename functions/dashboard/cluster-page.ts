// The cluster view as one self-contained HTML page: a row per RedisCluster (phase, conditions,
// slots, operation and progress, last runs, next run) and two charts of the last hour. Drawn
// on the server with every value escaped; no script, no external asset, no action: read-only.
import { SLOT_COUNT } from '../../shared/core/api/group.ts';
import { describeRun, formatMs, type RunRecord, type StatusSnapshot } from '../../shared/core/run-note.ts';
import { depthChart, kindOf, runsChart } from './charts.ts';
import { attentionOf, describeNext, progressFraction, type ClusterRow } from './cluster-rows.ts';
import type { ClusterView } from './cluster-view.ts';
import { html, type Html } from './html.ts';
import { pageStyle } from './page-style.ts';

export interface PageLinks {
  /** bull-board's base path (/admin/queues). */
  readonly queues: string;
  readonly queueName: string;
  /** Seconds between reloads of the page. */
  readonly refreshS: number;
}

export function renderClusterPage(view: ClusterView, links: PageLinks): string {
  const jobsOf = (jobId: string) =>
    `${links.queues}/queue/${encodeURIComponent(links.queueName)}/${encodeURIComponent(jobId)}`;
  const failing = view.rows.filter((r) => attentionOf(r) === 'failing').length;
  const busy = view.rows.filter((r) => attentionOf(r) === 'busy').length;
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${links.refreshS}">
<title>knredis · RedisClusters</title><style>${pageStyle}</style></head>
<body><header><h1>knredis · RedisClusters</h1>
<nav><a href="${links.queues}/queue/${encodeURIComponent(links.queueName)}">Queue jobs (bull-board) →</a></nav></header>
<p class="summary">${view.rows.length} cluster(s): <b class="failing">${failing} failing</b>, <b class="busy">${busy} in progress</b>,
<b class="ok">${view.rows.length - failing - busy} ready</b> · queue ${links.queueName} · ${view.failedJobs} failed job(s) kept ·
as of ${new Date(view.now).toISOString().replace('T', ' ').slice(0, 19)} UTC</p>
<section class="charts">${runsChart(view.timeline, view.now)}${depthChart(view.depth, view.now)}</section>
<table><thead><tr><th>Cluster</th><th>Phase</th><th>Conditions</th><th>Slots</th><th>Operation</th><th>Last runs</th><th>Next run</th></tr></thead>
<tbody>${view.rows.length === 0 ? html`<tr><td colspan="7" class="empty">No RedisCluster has run yet.</td></tr>` : view.rows.map((row) => rowHtml(row, view.now, jobsOf))}</tbody></table>
</body></html>`;
  return page.text;
}

function rowHtml(row: ClusterRow, now: number, jobsOf: (jobId: string) => string): Html {
  const s = row.status;
  const jobId = 'jobId' in row.next ? row.next.jobId : row.runs[0]?.jobId;
  return html`<tr class="row ${attentionOf(row)}" data-key="${row.key}">
<td class="key"><b>${row.key}</b>${jobId ? html`<br><a class="jobs" href="${jobsOf(jobId)}">jobs in bull-board →</a>` : ''}</td>
<td><span class="phase phase-${s?.phase ?? 'Unknown'}">${s?.phase ?? 'not run yet'}</span></td>
<td>${conditions(s)}</td>
<td>${slots(s)}</td>
<td>${operation(s)}</td>
<td>${runs(row.runs, now, jobsOf)}</td>
<td class="next">${describeNext(row.next, now)}</td></tr>`;
}

function conditions(s: StatusSnapshot | undefined): Html {
  const list = s?.conditions ?? [];
  if (list.length === 0) return html`<span class="muted">none</span>`;
  return html`${list.map((c) => {
    const tone = toneOf(c);
    return html`<div class="cond ${tone}"><b>${c.type}</b> ${c.status} <span class="reason">${c.reason}</span>${tone === 'good' ? '' : html`<div class="msg">${c.message}</div>`}</div>`;
  })}`;
}

/** Ready True, Degraded False and an idle Progressing are good; work in flight is busy, not bad. */
function toneOf(c: { type: string; status: string; reason: string }): 'good' | 'busy' | 'bad' {
  if (c.type === 'Degraded') return c.status === 'False' ? 'good' : 'bad';
  if (c.type === 'Progressing') return c.status === 'True' ? 'busy' : 'good';
  if (c.status === 'True') return 'good';
  return c.reason === 'OperationInProgress' ? 'busy' : 'bad';
}

function slots(s: StatusSnapshot | undefined): Html {
  if (s?.slotsCovered === undefined) return html`<span class="muted">–</span>`;
  return html`${s.slotsCovered}/${SLOT_COUNT}${bar(s.slotsCovered, SLOT_COUNT, s.slotsCovered === SLOT_COUNT ? 'full' : 'short')}`;
}

function operation(s: StatusSnapshot | undefined): Html {
  const op = s?.operation;
  if (!op) return html`<span class="muted">none</span>`;
  const fraction = progressFraction(op.progress);
  return html`<b>${op.type}</b><div class="msg">${op.progress ?? ''}</div>${fraction ? bar(fraction.done, fraction.total) : ''}${
    op.startedAt ? html`<div class="muted">since ${op.startedAt.replace('T', ' ').slice(0, 19)}</div>` : ''
  }`;
}

function runs(list: readonly RunRecord[], now: number, jobsOf: (jobId: string) => string): Html {
  const [last, ...older] = list;
  if (!last) return html`<span class="muted">no run yet</span>`;
  const kind = kindOf(last.result);
  return html`<div class="run ${kind}"><a href="${jobsOf(last.jobId)}">${describeRun(last)}</a>
<span class="muted">· took ${formatMs(last.durationMs)} · ${formatMs(Math.max(0, now - last.at))} ago</span>
${last.summary ? html`<div class="msg">${last.summary}</div>` : ''}</div>
${older.length > 0 ? html`<div class="strip">${older.map((r) => html`<a class="dot ${kindOf(r.result)}" href="${jobsOf(r.jobId)}" title="${describeRun(r)} · ${formatMs(r.durationMs)} · ${r.summary ?? ''}"></a>`)}<span class="muted"> earlier runs</span></div>` : ''}`;
}

function bar(done: number, total: number, tone = 'progress'): Html {
  const pct = Math.max(0, Math.min(100, (done / total) * 100));
  return html`<div class="bar ${tone}" title="${done}/${total}"><i style="width:${pct.toFixed(1)}%"></i></div>`;
}
