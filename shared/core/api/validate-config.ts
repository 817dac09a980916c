// Checks of spec.config the schema cannot make: every key must be a setting of the Redis in
// spec.version and its value one that Redis parses, or the node that reads the redis.conf
// refuses to start ("Bad directive") and CONFIG SET fails on every pass. The settings and the
// kind of each value come from a table generated from a real redis-server (redis-config/).
// Keys the operator owns, and the dangerous ones, are refused by the schema (config-keys.ts).
// Also warnings for changes that are allowed but change what happens to data.
import { closest } from './closest.ts';
import { forbiddenConfigReasons, RISKY_CONFIG_CHANGES } from './config-keys.ts';
import { configTableFor, type ConfigKeySpec, type ChosenTable } from './redis-config/index.ts';
import type { Verdict } from './verdict.ts';

// Redis' memtoull: digits and an optional unit, case-insensitive.
const MEMORY = /^\d+(b|k|kb|m|mb|g|gb)?$/i;

function valueComplaint(spec: ConfigKeySpec, value: string): string | undefined {
  switch (spec.kind) {
    case 'boolean':
      return /^(yes|no)$/i.test(value) ? undefined : 'must be yes or no';
    case 'enum':
      return spec.values.includes(value.toLowerCase()) ? undefined : `must be one of ${spec.values.join(', ')}`;
    case 'memory':
      return MEMORY.test(value) ? undefined : 'must be a size in bytes or with a unit, such as 512mb or 2gb';
    case 'memory-or-percent':
      return MEMORY.test(value) || /^\d+%$/.test(value)
        ? undefined
        : 'must be a size such as 512mb, or a percentage such as 10%';
    case 'octal':
      return /^[0-7]+$/.test(value) ? undefined : 'must be an octal number such as 700';
    case 'integer': {
      const range = `${spec.min ?? '-9223372036854775808'} to ${spec.max ?? '9223372036854775807'}`;
      if (!/^-?\d+$/.test(value)) return `must be an integer from ${range}`;
      const n = BigInt(value);
      return (spec.min !== undefined && n < BigInt(spec.min)) || (spec.max !== undefined && n > BigInt(spec.max))
        ? `must be an integer from ${range}`
        : undefined;
    }
    // Free text, or a syntax of its own (save, notify-keyspace-events, ...) that Redis checks.
    default:
      return undefined;
  }
}

/** What the operator itself needs of a value, beyond what Redis accepts. */
const OPERATOR_CHECKS: Record<string, (v: string) => string | undefined> = {
  'cluster-node-timeout': (v) =>
    /^\d+$/.test(v) && Number(v) >= 1000 ? undefined : 'must be a number of milliseconds, at least 1000',
};

function keyComplaint(chosen: ChosenTable, key: string, value: string): string | undefined {
  const spec = chosen.table.keys[key];
  if (spec === undefined) {
    const allowed = Object.keys(chosen.table.keys).filter((k) => forbiddenConfigReasons(k).length === 0);
    const hint = closest(key, allowed);
    return `is not a setting of Redis ${chosen.minor}${hint ? `: did you mean ${hint}?` : ''}`;
  }
  const complaint = valueComplaint(spec, value) ?? OPERATOR_CHECKS[key]?.(value);
  return complaint && `${JSON.stringify(value)} ${complaint}`;
}

export function checkConfig(
  config: Record<string, string> | undefined,
  old: Record<string, string> | undefined,
  verdict: Verdict,
  version: string,
): void {
  // Ratchet: a value the object already had is not judged again (finalizer and label
  // updates of an object stored before a check existed must still go through).
  const changed = Object.entries(config ?? {}).filter(([key, value]) => old?.[key] !== value);
  const chosen = configTableFor(version);
  if (changed.length > 0 && chosen && !chosen.exact) {
    verdict.warnings.push(
      `spec.config: checked against the settings of Redis ${chosen.minor}: knredis has no table of ${version}'s yet`,
    );
  }
  for (const [key, value] of changed) {
    // The schema refuses the operator's keys with their reason; nothing to add here.
    if (chosen === undefined || forbiddenConfigReasons(key).length > 0) continue;
    const complaint = keyComplaint(chosen, key.toLowerCase(), value);
    if (complaint) verdict.denials.push(`spec.config[${key}]: ${complaint}`);
  }
  if (old === undefined) return;
  for (const [key, warning] of Object.entries(RISKY_CONFIG_CHANGES)) {
    if ((config?.[key] ?? null) !== (old[key] ?? null)) verdict.warnings.push(`spec.config[${key}]: ${warning}`);
  }
}
