// The packages the bundle leaves outside (infra/build/build.mjs), which the image's
// node_modules must hold with everything they require (infra/build/prune-runtime-deps.mjs).
// bull-board serves its UI's files from its own package folder, so it cannot be bundled.
export const EXTERNAL_PACKAGES = ['@bull-board/*'];
