// Knative's ApiServerSource adapter and webhooks, with the CRDs and ConfigMaps of their
// releases: built once per KNATIVE_VERSION by build-knative.sh, then reused from the cache.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runBuildScript, type Progress } from '../binaries.ts';
import { cacheDir, localDir, versionOf } from '../paths.ts';

export const knativeBinaries = ['apiserver_receive_adapter', 'eventing-webhook', 'serving-webhook'] as const;
export type KnativeBinary = (typeof knativeBinaries)[number];

export interface KnativeBuild {
  readonly version: string;
  readonly dir: string;
  bin(name: KnativeBinary): string;
  /** config/core of knative.dev/eventing or knative.dev/serving. */
  config(part: 'eventing' | 'serving'): string;
}

export function knativeBuild(dir = join(cacheDir(), `knative-${versionOf('KNATIVE_VERSION')}`)): KnativeBuild {
  return {
    version: versionOf('KNATIVE_VERSION'),
    dir,
    bin: (name) => join(dir, 'bin', name),
    config: (part) => join(dir, 'config', part),
  };
}

export function haveKnative(build = knativeBuild()): boolean {
  return (
    knativeBinaries.every((b) => existsSync(build.bin(b))) &&
    existsSync(build.config('eventing')) &&
    existsSync(build.config('serving'))
  );
}

/** Builds first when something is missing (the first time: about ten minutes on 2 cores). */
export async function ensureKnative(progress: Progress = () => {}): Promise<KnativeBuild> {
  if (haveKnative()) return knativeBuild();
  progress(
    `building Knative ${knativeBuild().version} with go build (first time only); it goes to ${knativeBuild().dir}`,
  );
  const dir = await runBuildScript(join(localDir, 'build-knative.sh'), progress, (d) => haveKnative(knativeBuild(d)));
  return knativeBuild(dir);
}
