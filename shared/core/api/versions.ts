// Redis versions the operator supports, oldest first. spec.version must be one of them (the
// schema's enum); the webhook refuses a downgrade, since an older Redis cannot load the RDB
// files a newer one wrote.
export const SUPPORTED_VERSIONS = ['6.2', '7.0', '7.2', '7.4'] as const;
export type RedisVersion = (typeof SUPPORTED_VERSIONS)[number];
export const DEFAULT_VERSION: RedisVersion = '7.0';

/** The image used when spec.image is absent. */
export function defaultImage(version: string): string {
  return `redis:${version}`;
}

/** Negative when a is older than b, 0 when equal, positive when newer; NaN for an unknown version. */
export function compareVersions(a: string, b: string): number {
  const ia = SUPPORTED_VERSIONS.indexOf(a as RedisVersion);
  const ib = SUPPORTED_VERSIONS.indexOf(b as RedisVersion);
  return ia < 0 || ib < 0 ? NaN : ia - ib;
}
