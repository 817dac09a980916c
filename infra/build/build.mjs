// `npm run build`: the functions bundled into dist/, what the image runs (`node dist/start.js
// NAME...`); ./bundle-options.mjs says how. The Lua scripts the code reads beside itself go to
// dist/lua/, beside the chunks that read them.
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleOptions } from './bundle-options.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
await build({ ...bundleOptions(root, dist), logLevel: 'warning' });
mkdirSync(join(dist, 'lua'));
for (const folder of ['shared/io/queue/lua', 'shared/io/redis/lua']) {
  for (const file of readdirSync(join(root, folder))) cpSync(join(root, folder, file), join(dist, 'lua', file));
}
