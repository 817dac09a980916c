// The generated tables of redis.conf settings, by Redis minor version, and the choice of the
// table for a spec.version (see README.md in this folder).
import { REDIS_7_0 } from './redis-7.0.ts';
import type { ConfigTable } from './table.ts';

export type { ConfigKeySpec, ConfigTable } from './table.ts';

/** minor version -> table; add a version's generated file here. */
export const CONFIG_TABLES: Readonly<Record<string, ConfigTable>> = { '7.0': REDIS_7_0 };

const numeric = (minor: string) => minor.split('.').map(Number) as [number, number];
const older = (a: string, b: string) => {
  const [x, y] = numeric(a);
  const [u, v] = numeric(b);
  return x !== u ? x < u : y < v;
};

export interface ChosenTable {
  /** The minor version whose table it is. */
  readonly minor: string;
  readonly table: ConfigTable;
  /** False when the version has no table of its own and the nearest older one stands in. */
  readonly exact: boolean;
}

/** The table of `version` (a minor such as 7.2), or the newest older one; undefined when none is older. */
export function configTableFor(version: string): ChosenTable | undefined {
  const own = CONFIG_TABLES[version];
  if (own) return { minor: version, table: own, exact: true };
  const candidates = Object.keys(CONFIG_TABLES)
    .filter((m) => older(m, version))
    .sort((a, b) => (older(a, b) ? 1 : -1));
  const minor = candidates[0];
  return minor === undefined ? undefined : { minor, table: CONFIG_TABLES[minor]!, exact: false };
}
