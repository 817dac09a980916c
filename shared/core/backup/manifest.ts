// The manifest a backup writes beside its snapshots (manifest.json), and its reading back: a
// restore trusts nothing it did not check, since anyone with access to the bucket may change it.
import type { BackupShardStatus } from '../api/backup-v1beta1.ts';
import { parseSlots } from './layout.ts';

export const MANIFEST_FORMAT = 1;

export interface BackupManifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly namespace: string;
  readonly cluster: string;
  readonly backup: string;
  /** The redis-ver the snapshots' nodes wrote in them. */
  readonly redisVersion: string;
  readonly completedAt: string;
  readonly shards: readonly BackupShardStatus[];
}

/** The manifest, or what is wrong with it (for a condition; no content of it is echoed). */
export function parseManifest(value: unknown): BackupManifest | { error: string } {
  const m = value as Partial<BackupManifest> | null;
  if (typeof m !== 'object' || m === null || m.format !== MANIFEST_FORMAT)
    return { error: `the manifest is not a knredis backup manifest of format ${MANIFEST_FORMAT}` };
  if (!Array.isArray(m.shards) || m.shards.length === 0) return { error: 'the manifest lists no shard' };
  const covered = new Set<number>();
  for (const [i, s] of m.shards.entries()) {
    const ok =
      typeof s === 'object' &&
      s !== null &&
      typeof s.object === 'string' &&
      typeof s.crc64 === 'string' &&
      /^[0-9a-f]{16}$/.test(s.crc64) &&
      Number.isSafeInteger(s.keys) &&
      Number.isSafeInteger(s.bytes);
    const ranges = ok && typeof s.slots === 'string' ? parseSlots(s.slots) : undefined;
    if (!ranges) return { error: `shard ${i} of the manifest is malformed` };
    for (const r of ranges) for (let slot = r.start; slot <= r.end; slot++) covered.add(slot);
  }
  if (covered.size !== 16384) return { error: `the manifest's shards cover ${covered.size} of 16384 slots` };
  return m as BackupManifest;
}
