// The shape of a generated table of redis.conf settings (one file per Redis minor version,
// written by infra/redis/generate-config-keys.ts from a real redis-server).

/** How redis-server parses a setting's value, as its config-file parser refused a probe. */
export type ConfigKeySpec =
  | { kind: 'boolean' | 'memory' | 'memory-or-percent' | 'octal' | 'string'; restartOnly?: boolean }
  /** Bounds as decimal strings: a 64-bit setting's exceed a JavaScript number's precision. */
  | { kind: 'integer'; min?: string; max?: string; restartOnly?: boolean }
  | { kind: 'enum'; values: string[]; restartOnly?: boolean }
  /** A syntax of its own (save, client-output-buffer-limit, ...): `check` is what Redis said to a bad value. */
  | { kind: 'other'; check: string; restartOnly?: boolean };

export interface ConfigTable {
  /** The full version of the redis-server the table was generated from, e.g. 7.0.15. */
  version: string;
  /** Every key CONFIG GET * listed (aliases included), sorted. */
  keys: Record<string, ConfigKeySpec>;
}
