// Small inline SVG charts of the last hour, drawn on the server: runs per minute (stacked by
// outcome) and the queue depth. No script, no external asset; every label is escaped.
import type { RunResult } from '../../shared/core/run-note.ts';
import type { DepthSample } from '../../shared/io/queue/run-log.ts';
import { html, type Html } from './html.ts';

const width = 360;
const height = 64;
const minutes = 60;
const minuteMs = 60_000;

export type RunKind = 'ok' | 'requeue' | 'error';
export const kindOf = (result: RunResult): RunKind =>
  result === 'requeue' ? 'requeue' : result === 'retry' || result === 'terminal' ? 'error' : 'ok';
const colour: Record<RunKind, string> = { ok: '#2e7d32', requeue: '#1565c0', error: '#c62828' };

/** Runs per minute over the last hour, one bar a minute, stacked ok / requeue / error. */
export function runsChart(runs: readonly { at: number; result: RunResult }[], now: number): Html {
  const bins = Array.from({ length: minutes }, () => ({ ok: 0, requeue: 0, error: 0 }));
  for (const run of runs) {
    const index = minutes - 1 - Math.floor((now - run.at) / minuteMs);
    if (index >= 0 && index < minutes) bins[index]![kindOf(run.result)]++;
  }
  const max = Math.max(1, ...bins.map((b) => b.ok + b.requeue + b.error));
  const barWidth = width / minutes;
  const bars = bins.flatMap((bin, i) => {
    let y = height;
    return (['ok', 'requeue', 'error'] as const)
      .filter((k) => bin[k] > 0)
      .map((k) => {
        const h = (bin[k] / max) * (height - 4);
        y -= h;
        return html`<rect x="${(i * barWidth).toFixed(1)}" y="${y.toFixed(1)}" width="${(barWidth - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${colour[k]}"><title>${minutes - 1 - i} min ago: ${bin[k]} ${k}</title></rect>`;
      });
  });
  const totals = { ok: 0, requeue: 0, error: 0 };
  for (const bin of bins) for (const k of ['ok', 'requeue', 'error'] as const) totals[k] += bin[k];
  const label = `runs in the last hour: ${totals.ok} ok, ${totals.requeue} requeued, ${totals.error} failed (peak ${max} a minute)`;
  return chart(
    'Runs, last hour',
    label,
    html`${bars}`,
    `max ${max}/min`,
    html`<span class="key"><i style="background:${colour.ok}"></i>ok ${totals.ok}</span><span class="key"><i style="background:${colour.requeue}"></i>requeue ${totals.requeue}</span><span class="key"><i style="background:${colour.error}"></i>error ${totals.error}</span>`,
  );
}

/** Jobs waiting, delayed and active over the last hour, as an area. */
export function depthChart(samples: readonly DepthSample[], now: number): Html {
  const points = samples
    .filter((s) => now - s.at <= minutes * minuteMs)
    .map((s) => ({ at: s.at, n: s.waiting + s.delayed + s.active }));
  const max = Math.max(1, ...points.map((p) => p.n));
  const x = (at: number) => (width * (1 - (now - at) / (minutes * minuteMs))).toFixed(1);
  const y = (n: number) => (height - (n / max) * (height - 4)).toFixed(1);
  const line = points.map((p) => `${x(p.at)},${y(p.n)}`).join(' ');
  const first = points[0];
  const last = points[points.length - 1];
  const area =
    first && last
      ? html`<polygon points="${x(first.at)},${height} ${line} ${x(last.at)},${height}" fill="#90caf9" stroke="#1565c0" stroke-width="1.5"><title>queue depth, last: ${last.n}</title></polygon>`
      : html``;
  const label = `queue depth over the last hour: ${points.length} samples, now ${last?.n ?? 0}, peak ${max}`;
  return chart(
    'Queue depth, last hour',
    label,
    area,
    `max ${max}`,
    html`<span class="key">now ${last?.n ?? 0} (waiting + delayed + running)</span>`,
  );
}

function chart(title: string, label: string, body: Html, scale: string, legend: Html): Html {
  return html`<figure class="chart"><figcaption>${title} <small>${scale}</small></figcaption>
<svg role="img" aria-label="${label}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"><title>${label}</title><rect width="${width}" height="${height}" fill="#fafafa"/>${body}</svg>
<div class="axis"><span>-60 min</span><span>now</span></div><div class="legend">${legend}</div></figure>`;
}
