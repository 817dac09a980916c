// 5-field cron expressions (minute hour day-of-month month day-of-week), in UTC, as a
// Kubernetes CronJob reads them: `*`, numbers, ranges `a-b`, steps `*/n` and `a-b/n`, lists
// `a,b`, and Sunday as 0 or 7. When both day fields are restricted, a day matching either is
// due (cron's own rule). Pure: the schedule of spec.backup and the webhook's check use it.

export interface Cron {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly weekdays: ReadonlySet<number>;
  readonly anyDay: boolean;
  readonly anyWeekday: boolean;
}

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const;

/** The parsed expression, or why it is not one (a sentence for the webhook's refusal). */
export function parseCron(expression: string): Cron | { error: string } {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5)
    return {
      error: `"${expression}" has ${parts.length} field(s); a schedule has 5: minute hour day-of-month month day-of-week, e.g. "0 3 * * *" (03:00 UTC daily)`,
    };
  const sets: Set<number>[] = [];
  for (const [i, part] of parts.entries()) {
    const field = FIELDS[i]!;
    const set = parseField(part!, field.min, field.max);
    if (typeof set === 'string') return { error: `the ${field.name} field "${part}" ${set}` };
    sets.push(set);
  }
  const weekdays = new Set([...sets[4]!].map((d) => d % 7));
  return {
    minutes: sets[0]!,
    hours: sets[1]!,
    days: sets[2]!,
    months: sets[3]!,
    weekdays,
    anyDay: parts[2]!.startsWith('*'),
    anyWeekday: parts[4]!.startsWith('*'),
  };
}

function parseField(part: string, min: number, max: number): Set<number> | string {
  const out = new Set<number>();
  for (const item of part.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
    if (!m) return `is not a number, a range a-b, * or a step */n`;
    const from = m[1] === '*' ? min : Number(m[2]);
    const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < min || to > max || from > to) return `must stay within ${min}-${max}`;
    if (step < 1) return 'has a step below 1';
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

const MINUTE_MS = 60_000;
/** Long enough for any valid expression (29 February every 4 years, on a given weekday). */
const SEARCH_LIMIT_MINUTES = 60 * 24 * 366 * 28;

/** The first due minute strictly after `afterMs` (ms since the epoch), or undefined when none comes. */
export function nextDue(cron: Cron, afterMs: number): number | undefined {
  let t = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  for (let i = 0; i < SEARCH_LIMIT_MINUTES;) {
    const d = new Date(t);
    if (!cron.months.has(d.getUTCMonth() + 1) || !dayMatches(cron, d)) {
      // skip to the next day
      const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
      i += (next - t) / MINUTE_MS;
      t = next;
      continue;
    }
    if (!cron.hours.has(d.getUTCHours())) {
      const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
      i += (next - t) / MINUTE_MS;
      t = next;
      continue;
    }
    if (cron.minutes.has(d.getUTCMinutes())) return t;
    t += MINUTE_MS;
    i++;
  }
  return undefined;
}

function dayMatches(cron: Cron, d: Date): boolean {
  const day = cron.days.has(d.getUTCDate());
  const weekday = cron.weekdays.has(d.getUTCDay());
  if (cron.anyDay && cron.anyWeekday) return true;
  if (cron.anyDay) return weekday;
  if (cron.anyWeekday) return day;
  return day || weekday;
}
