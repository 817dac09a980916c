// `npm run build`: the functions bundled into dist/, what the image runs (`node dist/start.js
// NAME...`). One bundle, split so that each function is a chunk loaded only when named: a
// process running ingest alone parses ingest's code and libraries, not the reconciler's or the
// Kubernetes client's (ingest loads that on its first lookup). Bundling the libraries saves
// Node resolving and reading hundreds of files at start. bull-board stays outside: it serves
// its UI's files from its own package folder. The Lua scripts the code reads beside itself go
// to dist/lua/, beside the chunks that read them.
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { EXTERNAL_PACKAGES } from './externals.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'functions/start.ts')],
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL_PACKAGES,
  // CommonJS libraries inside an ES module bundle still call require() for Node's built-ins
  banner: {
    js: "import { createRequire as __knredisRequire } from 'node:module'; const require = __knredisRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
mkdirSync(join(dist, 'lua'));
for (const folder of ['shared/io/queue/lua', 'shared/io/redis/lua']) {
  for (const file of readdirSync(join(root, folder))) cpSync(join(root, folder, file), join(dist, 'lua', file));
}
