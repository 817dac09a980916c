// What a bundle's chunks reach, from esbuild's metafile: for tests of what a process loads at
// start (static imports) and what it loads later (dynamic imports).
import type { Metafile } from 'esbuild';

export type ImportKind = 'import-statement' | 'dynamic-import';

/** The outputs a chunk reaches through imports of `kinds`, from `start` (itself included). */
export function reached(meta: Metafile, start: string, kinds: readonly ImportKind[]): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const i of meta.outputs[path]?.imports ?? [])
      if (kinds.includes(i.kind as ImportKind) && !i.external) visit(i.path);
  };
  visit(start);
  return seen;
}

/** The source files (node_modules/... or the project's own) bundled into these outputs. */
export function inputsOf(meta: Metafile, outputs: Iterable<string>): string[] {
  return [...outputs].flatMap((o) => Object.keys(meta.outputs[o]?.inputs ?? {}));
}

/** The chunk whose entry point is the source file `source`: the bundle's entry, or a dynamic import's. */
export function chunkOf(meta: Metafile, source: string): string {
  const found = Object.keys(meta.outputs).find((o) => meta.outputs[o]?.entryPoint?.endsWith(source));
  if (!found) throw new Error(`no chunk of the bundle has ${source} as its entry`);
  return found;
}
