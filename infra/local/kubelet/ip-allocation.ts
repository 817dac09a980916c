// Pod and node addresses inside the environment's 127.X.0.0/16 (pure). Nodes use 127.X.0.<i>;
// pods use 127.X.<1..254>.<1..254>, handed out round-robin from a cursor so a freed address is
// not reused at once (clients of a deleted pod do not reach its successor by accident).

/** `127.42` -> validated prefix; anything else throws. */
export function parsePrefix(prefix: string): string {
  const m = /^127\.(\d{1,3})$/.exec(prefix);
  if (!m || Number(m[1]) > 255)
    throw new Error(`--pod-ip-prefix must look like 127.X with X in 0..255, got "${prefix}"`);
  return `127.${Number(m[1])}`;
}

export function nodeAddress(prefix: string, nodeIndex: number): string {
  if (nodeIndex < 1 || nodeIndex > 254) throw new Error(`node index ${nodeIndex} out of range 1..254`);
  return `${prefix}.0.${nodeIndex}`;
}

const perBlock = 254;
const capacity = 254 * perBlock;

function addressAt(prefix: string, index: number): string {
  return `${prefix}.${Math.floor(index / perBlock) + 1}.${(index % perBlock) + 1}`;
}

/** The next free address at or after `cursor`, and the cursor to use next time. */
export function nextFreeAddress(
  prefix: string,
  used: ReadonlySet<string>,
  cursor: number,
): { ip: string; cursor: number } {
  for (let step = 0; step < capacity; step++) {
    const index = (cursor + step) % capacity;
    const ip = addressAt(prefix, index);
    if (!used.has(ip)) return { ip, cursor: (index + 1) % capacity };
  }
  throw new Error(`no free pod address left in ${prefix}.0.0/16`);
}
