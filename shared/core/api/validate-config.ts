// Checks of spec.config values the schema cannot express well, and warnings for changes that
// are allowed but change what happens to data. Keys the operator owns are refused by the schema.
import { RISKY_CONFIG_CHANGES } from './config-keys.ts';
import type { Verdict } from './verdict.ts';

const MAXMEMORY_POLICIES = ['noeviction', 'allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl'];
const MEMORY = /^\d+(b|k|kb|m|mb|g|gb)?$/i;
const YES_NO = /^(yes|no)$/i;

/** Directive -> a check of its value returning a complaint, or undefined when fine. */
const VALUE_CHECKS: Record<string, (v: string) => string | undefined> = {
  maxmemory: (v) => (MEMORY.test(v) ? undefined : 'must be a size in bytes or with a unit, such as 512mb or 2gb'),
  'maxmemory-policy': (v) => (MAXMEMORY_POLICIES.includes(v.toLowerCase()) ? undefined : `must be one of ${MAXMEMORY_POLICIES.join(', ')}`),
  appendonly: (v) => (YES_NO.test(v) ? undefined : 'must be yes or no'),
  'cluster-require-full-coverage': (v) => (YES_NO.test(v) ? undefined : 'must be yes or no'),
  'cluster-node-timeout': (v) => (/^\d+$/.test(v) && Number(v) >= 1000 ? undefined : 'must be a number of milliseconds, at least 1000'),
};

export function checkConfig(config: Record<string, string> | undefined, old: Record<string, string> | undefined, verdict: Verdict): void {
  for (const [key, value] of Object.entries(config ?? {})) {
    // Ratchet: a value the object already had is not judged again (finalizer and label
    // updates of an object stored before a check existed must still go through).
    if (old?.[key] === value) continue;
    const complaint = VALUE_CHECKS[key.toLowerCase()]?.(value);
    if (complaint) verdict.denials.push(`spec.config[${key}]: ${JSON.stringify(value)} ${complaint}`);
  }
  if (old === undefined) return;
  for (const [key, warning] of Object.entries(RISKY_CONFIG_CHANGES)) {
    if ((config?.[key] ?? null) !== (old[key] ?? null)) verdict.warnings.push(`spec.config[${key}]: ${warning}`);
  }
}
