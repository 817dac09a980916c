// Redis Cluster runs a script or a MULTI only on keys of one hash slot, and BullMQ's scripts
// (and knredis' own, shared/io/queue/lua) touch several keys of a queue at once. A key's slot
// is the hash of its hash tag, the text between its first '{' and the next '}' when that is
// not empty (else of the whole key). Every queue key starts with `<prefix>:<queue>:`, so one
// tag there puts the whole queue in one slot.

/** The hash tag of a key, or undefined when Redis hashes the whole key. */
export function hashTagOf(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open < 0) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

export class HashTagError extends Error {
  override readonly name = 'HashTagError';
}

/**
 * The prefix for a queue on a Redis Cluster: as given when `<prefix>:<queue>:` already has a
 * hash tag, wrapped in braces when it has no brace at all ("knredis" -> "{knredis}"). Braces
 * that make no tag (an empty "{}", a '{' never closed before the queue's own keys) are refused:
 * any tag added around them would not be the one Redis reads.
 */
export function clusterPrefix(prefix: string, queue: string): string {
  const base = `${prefix}:${queue}:`;
  if (hashTagOf(base) !== undefined) return prefix;
  if (!/[{}]/.test(base)) return `{${prefix}}`;
  throw new HashTagError(
    `QUEUE_PREFIX "${prefix}" with QUEUE_NAME "${queue}" has braces but no hash tag: on a Redis Cluster ` +
      'every queue key must share one slot; use a prefix without braces (it is tagged for you) or one like "{knredis}"',
  );
}
