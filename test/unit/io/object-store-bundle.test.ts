// Cold start: a process loads the S3 SDK only when it first talks to the object store. Bundled
// as infra/build/build.mjs bundles (esm, split), the store's own chunk must not import the SDK
// statically; the SDK sits in a chunk reached by a dynamic import only.
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { build, type Metafile } from 'esbuild';
import { inputsOf, reached } from '../../support/bundle-graph.ts';

const entry = fileURLToPath(new URL('../../../shared/io/object-store.ts', import.meta.url));

const sdkInputs = (meta: Metafile, outputs: Set<string>) =>
  inputsOf(meta, outputs).filter((i) => /@aws-sdk\/|@smithy\//.test(i));

describe('shared/io/object-store bundle', function () {
  this.timeout(60_000);

  it('loads the S3 SDK lazily: no static import of it from the store', async () => {
    const { metafile } = await build({
      entryPoints: [entry],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir: '/nonexistent',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const main = Object.keys(metafile.outputs).find((o) => metafile.outputs[o]?.entryPoint !== undefined);
    expect(main).to.be.a('string');
    const atStart = reached(metafile, main as string, ['import-statement']);
    expect(sdkInputs(metafile, atStart)).to.deep.equal([]);
    const onFirstCall = reached(metafile, main as string, ['import-statement', 'dynamic-import']);
    expect(sdkInputs(metafile, onFirstCall).some((i) => i.includes('@aws-sdk/client-s3/'))).to.equal(true);
  });
});
