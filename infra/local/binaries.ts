// The control-plane binaries: built once per version by build-binaries.sh (go build from
// the Go module proxy), then reused from the cache.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { binaries, binDir, exporterBinary, localDir } from './paths.ts';

export type Progress = (line: string) => void;

export function haveBinaries(dir = binDir()): boolean {
  return binaries.every((b) => existsSync(join(dir, b)));
}

/** The bin directory; builds first when a binary is missing (the first time: tens of minutes). */
export async function ensureBinaries(progress: Progress = () => {}): Promise<string> {
  if (haveBinaries()) return binDir();
  progress(
    `building the control plane with go build (first time only; this takes a long while — tens of minutes on 2 cores); binaries go to ${binDir()}`,
  );
  return runBuildScript(join(localDir, 'build-binaries.sh'), progress, haveBinaries);
}

/**
 * redis_exporter, which the kubelet runs for the exporter sidecar's image; builds it first when
 * missing (the first time: about 2 minutes on 2 cores).
 */
export async function ensureExporter(progress: Progress = () => {}): Promise<string> {
  if (existsSync(exporterBinary())) return exporterBinary();
  progress(`building redis_exporter with go build (first time only); it goes to ${exporterBinary()}`);
  return runBuildScript(join(localDir, 'build-exporter.sh'), progress, existsSync);
}

/** Runs a build script that prints its output directory last and its progress on stderr. */
export function runBuildScript(script: string, progress: Progress, built: (dir: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      for (const line of s.split('\n').filter(Boolean)) progress(line);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const dir = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && built(dir)) resolve(dir);
      else reject(new Error(`${script} failed (exit ${code}):\n${stderr.split('\n').slice(-20).join('\n')}`));
    });
  });
}
