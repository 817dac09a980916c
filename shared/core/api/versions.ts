// Redis versions the operator supports, oldest first. spec.version must be one of them (a CEL
// rule of the schema, whose message says why the list starts where it does); the webhook
// refuses a downgrade, since an older Redis cannot load the RDB files a newer one wrote.
// 7.0 is the floor: the engine forms and scales the cluster with CLUSTER ADDSLOTSRANGE and
// reads settings with a multi-parameter CONFIG GET, both new in Redis 7.0.
export const SUPPORTED_VERSIONS = ['7.0', '7.2', '7.4'] as const;
export type RedisVersion = (typeof SUPPORTED_VERSIONS)[number];
export const DEFAULT_VERSION: RedisVersion = '7.0';
const OLDEST_VERSION: RedisVersion = SUPPORTED_VERSIONS[0];

/** Why spec.version is refused: the supported list, and why nothing older is on it. */
export const UNSUPPORTED_VERSION_MESSAGE =
  `must be one of ${SUPPORTED_VERSIONS.join(', ')}: ${OLDEST_VERSION} is the oldest supported, ` +
  'since forming and scaling a cluster needs CLUSTER ADDSLOTSRANGE and a multi-parameter CONFIG GET (Redis 7.0)';

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
