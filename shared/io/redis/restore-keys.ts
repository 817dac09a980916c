// Writes the keys of a snapshot into a cluster with RESTORE ... ABSTTL, each to the master that
// owns its slot, in pipelined batches with bounded memory. Never REPLACE: a key already there
// (a re-run after an interruption, or a client's write since) is counted and left alone, so
// running a restore twice is harmless. Keys whose expiry has passed are not written.
import type { RdbRecord } from '../../core/rdb/read-rdb.ts';
import { addressKey, type Address } from '../../core/cluster/topology.ts';
import { keySlot, SLOT_COUNT } from '../../core/cluster/slots.ts';
import { parseClusterNodes } from '../../core/cluster/parse-cluster-nodes.ts';
import { ClusterCommandError, StaleObservationError } from '../../core/cluster/errors.ts';
import { TerminalError } from '../../core/outcome.ts';
import { command, nodeName, pipeline, type NodePool } from './connection.ts';

export interface RestoreTarget {
  readonly pool: NodePool;
  /** Any node of the target: slot owners are read from it, and again after a MOVED. */
  readonly seed: Address;
}

export interface RestoreOptions {
  readonly signal?: AbortSignal;
  /** RESTOREs per node per pipeline (default 500). */
  readonly batchKeys?: number;
  /** Payload bytes held at once across nodes (default 16 MB); a larger key goes alone. */
  readonly batchBytes?: number;
  readonly now?: () => number;
}

export interface RestoreResult {
  restored: number;
  skippedExisting: number;
  skippedExpired: number;
}

const DEFAULT_BATCH_KEYS = 500;
const DEFAULT_BATCH_BYTES = 16 * 1024 * 1024;
/** Rounds of MOVED/ASK/TRYAGAIN redirections one batch may take (a slot moving meanwhile). */
const MAX_REDIRECT_ROUNDS = 10;
const RETRY_PAUSE_MS = 100;

interface Pending {
  readonly record: RdbRecord;
  /** Set by an ASK reply: this node imports the slot and takes the key after ASKING. */
  readonly askAt?: Address;
}

/** Restores every record; throws on a refusal other than BUSYKEY (bad payload, newer RDB). */
export async function restoreRecords(
  target: RestoreTarget,
  records: AsyncIterable<RdbRecord>,
  options: RestoreOptions = {},
): Promise<RestoreResult> {
  const now = options.now ?? Date.now;
  const batchKeys = options.batchKeys ?? DEFAULT_BATCH_KEYS;
  const batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
  const result: RestoreResult = { restored: 0, skippedExisting: 0, skippedExpired: 0 };
  let owners = await slotOwners(target);
  let batch: Pending[] = [];
  let bytes = 0;
  const perNode = new Map<string, number>();

  // A batch is written while the next one is read: at most two batches are held.
  let writing: Promise<void> = Promise.resolve();
  const write = async (first: Pending[]) => {
    let pending = first;
    for (let round = 0; pending.length > 0; round++) {
      options.signal?.throwIfAborted();
      if (round >= MAX_REDIRECT_ROUNDS)
        throw new StaleObservationError(`${pending.length} key(s) still redirected after ${round} rounds`);
      const { again, moved } = await send(target.pool, pending, owners, result);
      if (moved) owners = await slotOwners(target);
      else if (again.length > 0) await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS));
      pending = again;
    }
  };
  const flush = async () => {
    const pending = batch;
    batch = [];
    bytes = 0;
    perNode.clear();
    await writing;
    writing = write(pending);
    writing.catch(() => {}); // seen by the next flush, or at the end
  };

  for await (const record of records) {
    options.signal?.throwIfAborted();
    if (record.db !== 0)
      throw new TerminalError(`the snapshot holds keys of database ${record.db}; a cluster has 0 only`);
    if (record.expireAtMs !== undefined && record.expireAtMs <= now()) {
      result.skippedExpired++;
      continue;
    }
    const node = addressKey(ownerOf(owners, record.key));
    const count = (perNode.get(node) ?? 0) + 1;
    perNode.set(node, count);
    batch.push({ record });
    bytes += record.payload.length;
    if (count >= batchKeys || bytes >= batchBytes) await flush();
  }
  await flush();
  await writing;
  return result;
}

/** One pipeline per node; returns what must go again (redirected, or the node busy loading). */
async function send(
  pool: NodePool,
  pending: readonly Pending[],
  owners: readonly (Address | undefined)[],
  result: RestoreResult,
): Promise<{ again: Pending[]; moved: boolean }> {
  const byNode = new Map<string, { address: Address; items: Pending[] }>();
  for (const p of pending) {
    const address = p.askAt ?? ownerOf(owners, p.record.key);
    const key = addressKey(address);
    const group = byNode.get(key) ?? { address, items: [] };
    group.items.push(p);
    byNode.set(key, group);
  }
  const again: Pending[] = [];
  let moved = false;
  await Promise.all(
    [...byNode.values()].map(async ({ address, items }) => {
      const commands = items.flatMap((p) => [...(p.askAt ? [['ASKING']] : []), restoreCommand(p.record)]);
      const replies = await pipeline(pool, address, 'RESTORE', commands);
      let at = 0;
      for (const p of items) {
        if (p.askAt) at++; // ASKING's own +OK
        const [error] = replies[at++] ?? [null];
        const message = error?.message ?? '';
        if (!error) result.restored++;
        else if (/^BUSYKEY/.test(message)) result.skippedExisting++;
        else if (/^MOVED/.test(message)) {
          moved = true;
          again.push({ record: p.record });
        } else if (/^ASK /.test(message)) again.push({ record: p.record, askAt: redirectAddress(message) });
        else if (/^(TRYAGAIN|CLUSTERDOWN|LOADING)/.test(message)) again.push({ record: p.record });
        else throw new ClusterCommandError('RESTORE', nodeName(address), message);
      }
    }),
  );
  return { again, moved };
}

function restoreCommand(r: RdbRecord): (string | number | Buffer)[] {
  return ['RESTORE', r.key, r.expireAtMs ?? 0, r.payload, 'ABSTTL'];
}

/** "ASK 3999 127.0.0.1:6381" -> the address (an IPv6 host keeps its colons). */
function redirectAddress(message: string): Address {
  const target = message.split(' ')[2] ?? '';
  const colon = target.lastIndexOf(':');
  return { ip: target.slice(0, colon), port: Number(target.slice(colon + 1)) };
}

function ownerOf(owners: readonly (Address | undefined)[], key: Buffer): Address {
  const slot = keySlot(key);
  const owner = owners[slot];
  if (!owner) throw new StaleObservationError(`no master serves slot ${slot} of the restore target`);
  return owner;
}

/** The master of each slot as the seed sees it; a node without cluster mode owns them all. */
export async function slotOwners(target: RestoreTarget): Promise<(Address | undefined)[]> {
  const owners = new Array<Address | undefined>(SLOT_COUNT);
  let text: string;
  try {
    text = String(await command(target.pool, target.seed, 'CLUSTER NODES', ['CLUSTER', 'NODES']));
  } catch (error) {
    if (error instanceof ClusterCommandError && /cluster support disabled/i.test(error.reply))
      return owners.fill(target.seed);
    throw error;
  }
  for (const entry of parseClusterNodes(text)) {
    if (entry.role !== 'master' || entry.failing === 'fail' || !entry.address) continue;
    for (const r of entry.slots) for (let s = r.start; s <= r.end; s++) owners[s] = entry.address;
  }
  return owners;
}
