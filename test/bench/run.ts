// `npm run bench -- NAME`: runs test/bench/NAME.ts, whose default export returns rows.
// Prints them as a table, then the whole result as one JSON object on the last line.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable, type BenchResult } from './table.ts';

const here = dirname(fileURLToPath(import.meta.url));
// A benchmark is a file with a default export; the others here are its helpers.
const names = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && /^export default /m.test(readFileSync(join(here, f), 'utf8')))
  .map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.error(`usage: npm run bench -- NAME   (one of: ${names.join(', ') || 'none yet'})`);
  process.exit(2);
}
const bench = (await import(join(here, `${name}.ts`))) as { default: (args: string[]) => Promise<BenchResult> };
const result = await bench.default(process.argv.slice(3));
for (const table of result.tables) console.log(formatTable(table));
console.log(JSON.stringify({ bench: name, ...result.summary }));
process.exit(0);
