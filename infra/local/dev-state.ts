// dev.json in the environment's directory: which `npm run dev` process runs against it and the
// processes it started, so a second `npm run dev` refuses politely and tests can check that
// Ctrl-C left nothing behind.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { envDir } from './paths.ts';
import { isRunning } from './processes.ts';

export interface DevState {
  /** The node process running infra/local/dev.ts. */
  readonly pid: number;
  readonly name: string;
  /** dev started the environment (it then stops it on exit, unless keep). */
  readonly startedEnvironment: boolean;
  readonly keep: boolean;
  /** Pids of the operator stack's processes, by name. */
  readonly stack: Record<string, number>;
  readonly kubeconfig?: string;
  readonly dashboard?: string;
}

export function devStatePath(name: string): string {
  return join(envDir(name), 'dev.json');
}

export function readDevState(name: string): DevState | undefined {
  const path = devStatePath(name);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as DevState;
  } catch {
    return undefined;
  }
}

/** The dev process already running against this environment, if any. */
export function runningDev(name: string): number | undefined {
  const state = readDevState(name);
  return state && state.pid !== process.pid && isRunning(state.pid, 'dev.ts') ? state.pid : undefined;
}

export async function writeDevState(state: DevState): Promise<void> {
  const path = devStatePath(state.name);
  await writeFile(`${path}.tmp`, JSON.stringify(state, null, 2) + '\n');
  await rename(`${path}.tmp`, path);
}

export function removeDevState(name: string): void {
  rmSync(devStatePath(name), { force: true });
}
