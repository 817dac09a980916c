// The AUTH part of MIGRATE, so the source can write to a target that has requirepass.
import type { RedisAuth } from './connection.ts';

export function migrateAuthArgs(auth: RedisAuth): string[] {
  if (auth.username && auth.password) return ['AUTH2', auth.username, auth.password];
  if (auth.password) return ['AUTH', auth.password];
  return [];
}
