// What a Node.js process really holds: the sum of the objects in a heap snapshot, which V8
// takes after a full garbage collection and which lists only what is reachable. "Heap used"
// from the process' own metrics also counts garbage not collected yet, so a busy process
// looks bigger than an idle one holding the same. The process must run with
// --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<dir> (NODE_OPTIONS takes both).
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { rssMb } from './proc.ts';

export const liveHeapNodeOptions = (dir: string) => `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`;

interface HeapSnapshot {
  readonly snapshot: {
    readonly meta: { readonly node_fields: readonly string[]; readonly node_types: readonly unknown[] };
  };
  readonly nodes: readonly number[];
  readonly strings: readonly string[];
}

export interface LiveHeap {
  readonly liveMb: number;
  readonly rssMb: number;
  /** What holds the most, MB: objects by constructor, the rest by V8's kind ("(string)", "(code)"...). */
  readonly top: Readonly<Record<string, number>>;
}

/** Live heap (MB) of the process, its RSS just after the collection the snapshot made, and its biggest holders. */
export async function liveHeap(pid: number, dir: string, timeoutMs = 300_000): Promise<LiveHeap> {
  const before = new Set(await readdir(dir));
  process.kill(pid, 'SIGUSR2');
  const started = performance.now();
  for (;;) {
    if (performance.now() - started > timeoutMs) throw new Error(`no heap snapshot of ${pid} in ${timeoutMs} ms`);
    const file = (await readdir(dir)).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    // The file grows while V8 writes it; it is whole once it parses.
    const snapshot = file ? await readWhole(join(dir, file)) : undefined;
    if (file && snapshot) {
      const rss = rssMb(pid);
      await rm(join(dir, file));
      return { ...sizes(snapshot), rssMb: rss };
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

function sizes(snapshot: HeapSnapshot): { liveMb: number; top: Record<string, number> } {
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const [typeField, nameField, sizeField] = (['type', 'name', 'self_size'] as const).map((f) => fields.indexOf(f));
  const typeNames = types[0] as readonly string[];
  const byHolder = new Map<string, number>();
  let bytes = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const size = snapshot.nodes[i + sizeField!]!;
    const type = typeNames[snapshot.nodes[i + typeField!]!] ?? '?';
    const holder = type === 'object' ? (snapshot.strings[snapshot.nodes[i + nameField!]!] ?? '?') : `(${type})`;
    byHolder.set(holder, (byHolder.get(holder) ?? 0) + size);
    bytes += size;
  }
  const top = [...byHolder]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([holder, n]) => [holder, Math.round((n / 2 ** 20) * 10) / 10]);
  return { liveMb: Math.round(bytes / 2 ** 20), top: Object.fromEntries(top) };
}

async function readWhole(path: string): Promise<HeapSnapshot | undefined> {
  const size = (await stat(path)).size;
  await new Promise((r) => setTimeout(r, 200));
  if ((await stat(path)).size !== size) return undefined;
  try {
    return JSON.parse(await readFile(path, 'utf8')) as HeapSnapshot;
  } catch {
    return undefined;
  }
}
