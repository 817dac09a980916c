// What a benchmark returns, and how its tables are printed.
export interface BenchTable {
  title: string;
  columns: string[];
  rows: (string | number)[][];
}

export interface BenchResult {
  tables: BenchTable[];
  /** Printed as one JSON object on the last line, for machines. */
  summary: Record<string, unknown>;
}

export function formatTable(table: BenchTable): string {
  const cells = [table.columns, ...table.rows.map((r) => r.map((c) => (typeof c === 'number' ? format(c) : c)))];
  const widths = table.columns.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: (string | number)[]) =>
    '| ' + r.map((c, i) => String(c ?? '').padEnd(widths[i] ?? 0)).join(' | ') + ' |';
  const rule = '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|';
  return [`\n${table.title}`, line(cells[0] ?? []), rule, ...cells.slice(1).map(line)].join('\n');
}

function format(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toPrecision(3);
}

/** Percentile (0..100) of a sample, nearest-rank. */
export function percentile(sample: number[], p: number): number {
  if (sample.length === 0) return NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
