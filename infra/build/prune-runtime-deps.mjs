// `node infra/build/prune-runtime-deps.mjs [DIR]`: after `npm ci --omit=dev` in DIR (default
// the working directory), removes from DIR/node_modules every package the bundle does not
// load at run time. The bundle (infra/build/build.mjs) holds every library but the externals
// (externals.mjs); those, and what they depend on, stay. Without it the image carried the
// whole production tree (166 MB), bundled already, and typescript (valibot's optional peer).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { EXTERNAL_PACKAGES } from './externals.mjs';

const root = process.argv[2] ?? process.cwd();
const modules = join(root, 'node_modules');

/** The folder Node would load `name` from when required inside `from` (nested first, then up). */
function resolvePackage(from, name) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir || !dir.startsWith(root)) return undefined;
  }
}

/** Top-level package names matching the externals' patterns (`@scope/*` or exact). */
function externals() {
  const names = [];
  for (const pattern of EXTERNAL_PACKAGES) {
    if (!pattern.endsWith('/*')) names.push(pattern);
    else {
      const scope = pattern.slice(0, -2);
      if (existsSync(join(modules, scope)))
        for (const p of readdirSync(join(modules, scope))) names.push(`${scope}/${p}`);
    }
  }
  return names;
}

const production = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {};
const kept = new Set();
const visit = (dir) => {
  if (kept.has(dir)) return;
  kept.add(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  // Peers too: the required ones (bull-board's api needs its ui), and the optional ones the
  // project itself depends on in production (its BullMQ adapter requires bullmq); not the
  // others (valibot names typescript, for its types only, a devDependency here).
  const optionalPeer = (dep) => pkg.peerDependenciesMeta?.[dep]?.optional === true;
  const peers = Object.keys(pkg.peerDependencies ?? {}).filter((dep) => !optionalPeer(dep) || dep in production);
  for (const dep of [...Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }), ...peers]) {
    const found = resolvePackage(dir, dep);
    if (found) visit(found);
    else if (dep in (pkg.dependencies ?? {}))
      throw new Error(`${relative(root, dir)} needs ${dep}, which is not installed`);
  }
};
const roots = externals();
if (roots.length === 0)
  throw new Error(`no external package (${EXTERNAL_PACKAGES.join(', ')}) in ${modules}: run npm ci first`);
for (const name of roots) visit(join(modules, name));

// A top-level entry stays when it or something inside it was reached.
const topLevel = (dir) => {
  const [first, second] = relative(modules, dir).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
};
const keep = new Set([...kept].map(topLevel));
let removed = 0;
for (const entry of readdirSync(modules)) {
  const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((p) => `${entry}/${p}`) : [entry];
  for (const name of names) {
    if (keep.has(name)) continue;
    rmSync(join(modules, name), { recursive: true, force: true });
    removed++;
  }
  if (entry.startsWith('@') && readdirSync(join(modules, entry)).length === 0)
    rmSync(join(modules, entry), { recursive: true });
}
console.log(`kept ${keep.size} package(s) the externals need (${roots.join(', ')}), removed ${removed}`);
