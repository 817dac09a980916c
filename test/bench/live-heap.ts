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
  readonly snapshot: { readonly meta: { readonly node_fields: readonly string[] } };
  readonly nodes: readonly number[];
}

/** Live heap (MB) of the process, and its RSS just after the collection the snapshot made. */
export async function liveHeap(
  pid: number,
  dir: string,
  timeoutMs = 300_000,
): Promise<{ liveMb: number; rssMb: number }> {
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
      const fields = snapshot.snapshot.meta.node_fields;
      const selfSize = fields.indexOf('self_size');
      let bytes = 0;
      for (let i = selfSize; i < snapshot.nodes.length; i += fields.length) bytes += snapshot.nodes[i]!;
      return { liveMb: Math.round(bytes / 2 ** 20), rssMb: rss };
    }
    await new Promise((r) => setTimeout(r, 500));
  }
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
