// A client like an application's: ioredis Cluster (follows MOVED/ASK, retries TRYAGAIN),
// writing and reading continuously while slots move. Each worker owns its keys, so a read must
// return that worker's last acknowledged write; anything else, and any rejected command, counts
// as an error. Also bulk-loads keys straight into their owners, pipelined, for speed.
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis } from 'ioredis';
import { keySlot } from '../../../shared/core/cluster/slots.ts';
import { myselfOf, type Topology } from '../../../shared/core/cluster/topology.ts';

export const keyName = (prefix: string, i: number) => `${prefix}:${i}`;

/** A value of at least `bytes` bytes that starts with `tag` (which tells versions apart). */
export const padded = (tag: string, bytes: number) =>
  tag.length >= bytes ? tag : tag + '.'.repeat(bytes - tag.length);

/** SETs keys prefix:0..n-1 = "v0" on the nodes that own them, pipelined. */
export async function bulkLoad(
  topology: Topology,
  prefix: string,
  n: number,
  password?: string,
  tls?: ConnectionOptions,
  valueBytes = 0,
): Promise<void> {
  const value = padded('v0', valueBytes);
  const owner = new Map<number, { ip: string; port: number }>();
  for (const v of topology.views)
    for (const r of myselfOf(v).slots) for (let s = r.start; s <= r.end; s++) owner.set(s, v.address);
  const groups = new Map<string, string[]>();
  for (let i = 0; i < n; i++) {
    const key = keyName(prefix, i);
    const a = owner.get(keySlot(key));
    if (!a) throw new Error(`slot of ${key} has no owner`);
    const id = `${a.ip}:${a.port}`;
    const list = groups.get(id) ?? [];
    list.push(key);
    groups.set(id, list);
  }
  await Promise.all(
    [...groups].map(async ([id, keys]) => {
      const [ip, port] = id.split(':');
      const client = new Redis({
        host: ip,
        port: Number(port),
        ...(password ? { password } : {}),
        ...(tls ? { tls } : {}),
      });
      try {
        for (let i = 0; i < keys.length; i += 5000) {
          const p = client.pipeline();
          for (const k of keys.slice(i, i + 5000)) p.set(k, value);
          await p.exec();
        }
      } finally {
        client.disconnect();
      }
    }),
  );
}

export interface LoadReport {
  ops: number;
  errors: number;
  mismatches: number;
  samples: string[];
}

export class ClientLoad {
  readonly last = new Map<string, string>();
  /** When each key's last write was acknowledged, and by which node the client then held as the slot's master. */
  private readonly acked = new Map<string, string>();
  private stopping = false;
  private readonly report: LoadReport = { ops: 0, errors: 0, mismatches: 0, samples: [] };
  private workers: Promise<void>[] = [];
  private valueBytes = 0;
  readonly cluster: Cluster;

  /** onLatency: called with each command's latency in ms, redirects and retries included; tls: spec.tls's client side. */
  constructor(
    seeds: { ip: string; port: number }[],
    readonly prefix: string,
    readonly keys: number,
    password?: string,
    private readonly onLatency?: (ms: number) => void,
    tls?: ConnectionOptions,
  ) {
    this.cluster = new Cluster(
      seeds.map((s) => ({ host: s.ip, port: s.port })),
      password || tls ? { redisOptions: { ...(password ? { password } : {}), ...(tls ? { tls } : {}) } } : {},
    );
    this.cluster.on('error', () => {
      /* counted per command */
    });
  }

  /**
   * Switches to another password, as an application does when told a rotation reached it:
   * connections opened from now on authenticate with it (open ones stay authenticated).
   */
  usePassword(password: string): void {
    // ioredis' connection pool holds this very object: it is changed in place.
    const redisOptions = (this.cluster.options as { redisOptions?: { password?: string } }).redisOptions;
    if (!redisOptions) throw new Error('the load was started without a password');
    redisOptions.password = password;
  }

  /** Values written (and expected of keys never written: bulkLoad's with the same size) pad to this size. */
  padValuesTo(bytes: number): this {
    this.valueBytes = bytes;
    return this;
  }

  start(workers = 6): void {
    this.stopping = false;
    this.workers = Array.from({ length: workers }, (_, w) => this.work(w, workers));
  }

  /** The counts so far, while the load runs. */
  counts(): LoadReport {
    return { ...this.report, samples: [...this.report.samples] };
  }

  private async timed<T>(command: () => Promise<T>): Promise<T> {
    if (!this.onLatency) return command();
    const started = performance.now();
    try {
      return await command();
    } finally {
      this.onLatency(performance.now() - started);
    }
  }

  private fail(what: string): void {
    this.report.errors++;
    if (this.report.samples.length < 5) this.report.samples.push(what);
  }

  private async work(w: number, of: number): Promise<void> {
    let version = 0;
    // Worker w owns the keys whose index is w modulo `of`.
    const owned = Math.max(1, Math.floor((this.keys - 1 - w) / of) + 1);
    const pick = () => keyName(this.prefix, Math.floor(Math.random() * owned) * of + w);
    for (let n = 0; !this.stopping && n < 10_000_000; n++) {
      version++;
      try {
        if (n % 10 === 9) {
          // Multi-key op on one slot: TRYAGAIN while that slot is split; ioredis retries it.
          const a = `${this.prefix}:{w${w}}:a`,
            b = `${this.prefix}:{w${w}}:b`;
          const value = padded(`m${version}`, this.valueBytes);
          await this.timed(() => this.cluster.mset(a, value, b, value));
          this.last.set(a, value);
          this.last.set(b, value);
          this.noteAck(a);
          this.noteAck(b);
        } else {
          const key = pick();
          const value = padded(`w${version}`, this.valueBytes);
          await this.timed(() => this.cluster.set(key, value));
          this.last.set(key, value);
          this.noteAck(key);
          const other = pick();
          const got = await this.timed(() => this.cluster.get(other));
          const expected = this.last.get(other) ?? padded('v0', this.valueBytes);
          if (got !== expected) {
            this.report.mismatches++;
            this.fail(`GET ${other}: ${got} != ${expected}`);
          }
        }
        this.report.ops++;
      } catch (error) {
        this.fail(error instanceof Error ? error.message : String(error));
      }
    }
  }

  private noteAck(key: string): void {
    const slots = (this.cluster as unknown as { slots: (string[] | undefined)[] }).slots;
    this.acked.set(key, `${new Date().toISOString()} by ${slots[keySlot(key)]?.[0] ?? '?'}`);
  }

  async stop(): Promise<LoadReport> {
    this.stopping = true;
    await Promise.all(this.workers);
    return { ...this.report };
  }

  /** Reads every key back through the cluster client: missing or stale values are returned. */
  async verify(): Promise<string[]> {
    const wrong: string[] = [];
    const check = async (keys: string[]) => {
      const values = await Promise.all(keys.map((k) => this.cluster.get(k)));
      keys.forEach((k, i) => {
        const want = this.last.get(k) ?? padded('v0', this.valueBytes);
        if (values[i] !== want)
          wrong.push(`${k}=${values[i]} want ${want}${this.acked.has(k) ? ` (acked ${this.acked.get(k)})` : ''}`);
      });
    };
    for (let i = 0; i < this.keys; i += 2000)
      await check(Array.from({ length: Math.min(2000, this.keys - i) }, (_, j) => keyName(this.prefix, i + j)));
    await check([...this.last.keys()].filter((k) => k.includes('{w')));
    return wrong;
  }

  async close(): Promise<void> {
    this.cluster.disconnect();
  }
}
