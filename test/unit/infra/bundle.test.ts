// Cold start: what a process running ingest alone loads before its first 202. Bundled as
// `npm run build` bundles (infra/build/bundle-options.mjs), the entry chunk and ingest's chunk,
// with what they import statically, must leave out express (the probes and /metrics are plain
// node:http routes; express is loaded when the dashboard mounts on it) and the Kubernetes
// client (loaded on ingest's first lookup of an owner).
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { build, type Metafile } from 'esbuild';
import { BUNDLE_ENTRY, bundleOptions } from '../../../infra/build/bundle-options.mjs';
import { chunkOf, inputsOf, reached } from '../../support/bundle-graph.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The packages (node_modules/NAME) bundled into the outputs. */
const packagesIn = (meta: Metafile, outputs: Iterable<string>) =>
  new Set(inputsOf(meta, outputs).flatMap((i) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(i)?.[1] ?? []));

/** The packages a process running `fn` alone loads at start: the entry's and fn's static imports. */
const atStart = (meta: Metafile, fn: string) =>
  packagesIn(meta, [
    ...reached(meta, chunkOf(meta, BUNDLE_ENTRY), ['import-statement']),
    ...reached(meta, chunkOf(meta, `functions/${fn}/index.ts`), ['import-statement']),
  ]);

describe('the functions bundle', function () {
  this.timeout(120_000);
  let meta: Metafile;

  before(async () => {
    ({ metafile: meta } = await build({
      ...bundleOptions(root, '/nonexistent'),
      write: false,
      metafile: true,
      logLevel: 'silent',
    }));
  });

  it('starts ingest without express or the Kubernetes client', () => {
    const loaded = atStart(meta, 'ingest');
    // what ingest needs for its first 202 is there: the queue and the CloudEvents parser
    expect([...loaded]).to.include.members(['bullmq', 'ioredis', 'cloudevents', 'pino', 'prom-client']);
    expect([...loaded].filter((p) => ['express', 'body-parser', '@kubernetes/client-node'].includes(p))).to.deep.equal(
      [],
    );
  });

  it('loads express with the dashboard, which mounts its routes on it', () => {
    expect([...atStart(meta, 'dashboard')]).to.include('express');
  });
});
