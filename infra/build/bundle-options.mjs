// How the functions are bundled (esbuild's options), for `npm run build` (./build.mjs) and for
// the test that checks what a function's process loads at start (test/unit/infra/bundle.test.ts).
// One bundle, split so that each function is a chunk loaded only when named: a process running
// ingest alone parses ingest's code and libraries, not the reconciler's or the Kubernetes
// client's (ingest loads that on its first lookup). Bundling the libraries saves Node resolving
// and reading hundreds of files at start. bull-board stays outside: it serves its UI's files
// from its own package folder.
import { join } from 'node:path';
import { EXTERNAL_PACKAGES } from './externals.mjs';

/** The entry point, relative to the repository's root. */
export const BUNDLE_ENTRY = 'functions/start.ts';

/**
 * esbuild's options for the bundle of the repository at `root`, written to `outdir`.
 * @param {string} root
 * @param {string} outdir
 */
export function bundleOptions(root, outdir) {
  return {
    entryPoints: [join(root, BUNDLE_ENTRY)],
    outdir,
    bundle: true,
    splitting: true,
    format: /** @type {const} */ ('esm'),
    platform: /** @type {const} */ ('node'),
    target: 'node20',
    external: EXTERNAL_PACKAGES,
    // CommonJS libraries inside an ES module bundle still call require() for Node's built-ins
    banner: {
      js: "import { createRequire as __knredisRequire } from 'node:module'; const require = __knredisRequire(import.meta.url);",
    },
  };
}
