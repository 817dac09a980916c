// Runs a container's process: its own process group (signals reach its children too), output
// appended to a log file, a pid file so a restarted kubelet can stop what a crashed one left.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, mkdirSync, writeFileSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { constants } from 'node:os';
import type { ProcessPlan } from './process-plan.ts';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly signalNumber?: number;
  /** The runtime's reason, when it knows better than the exit code (a container's OOMKilled). */
  readonly reason?: string;
  readonly at: number;
}

export interface RunningProcess {
  readonly pid: number;
  /** The runtime's id of a container (`podman://<id>`); none for a process. */
  readonly containerID?: string;
  /** The id of the image it runs (`sha256:<id>`, a container's); none for a process. */
  readonly imageID?: string;
  readonly startedAt: number;
  readonly exited: Promise<ProcessExit>;
  /** Sends a signal to the whole process group; false when it is gone. */
  signal(signal: NodeJS.Signals): boolean;
  isAlive(): boolean;
}

export function startProcess(plan: ProcessPlan, logFile: string, pidFile: string): RunningProcess {
  mkdirSync(dirname(logFile), { recursive: true });
  mkdirSync(plan.cwd, { recursive: true });
  const out = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(plan.program, [...plan.args], {
      cwd: plan.cwd,
      env: { ...plan.env },
      detached: true,
      stdio: ['ignore', out, out],
    });
  } finally {
    closeSync(out);
  }
  let alive = true;
  const exited = new Promise<ProcessExit>((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null) => {
      alive = false;
      rmSync(pidFile, { force: true });
      resolve({ code, signal, ...(signal ? { signalNumber: constants.signals[signal] } : {}), at: Date.now() });
    };
    child.once('exit', done);
    child.once('error', () => done(127, null));
  });
  const pid = child.pid ?? -1;
  if (pid > 0) {
    mkdirSync(dirname(pidFile), { recursive: true });
    // The start time tells this process from a later one that got the same pid.
    writeFileSync(pidFile, `${pid} ${startTimeOf(pid) ?? ''}`);
  }
  return {
    pid,
    startedAt: Date.now(),
    exited,
    isAlive: () => alive,
    signal(signal) {
      if (!alive || pid <= 0) return false;
      try {
        process.kill(-pid, signal);
        return true;
      } catch {
        /* group gone: try the process */
      }
      try {
        process.kill(pid, signal);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** Runs a command beside a container (exec probes, preStop hooks) within timeoutMs. */
export type Exec = (command: readonly string[], timeoutMs: number) => Promise<Completion>;

export interface Completion {
  readonly exitCode: number;
  readonly timedOut: boolean;
  /** The first 4 KiB of its output, stdout and stderr as they came. */
  readonly output: string;
}

/** Runs a short command (exec probe, preStop) to completion within timeoutMs. */
export function runToCompletion(plan: ProcessPlan, timeoutMs: number): Promise<Completion> {
  const child = spawn(plan.program, [...plan.args], {
    cwd: plan.cwd,
    env: { ...plan.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return completionOf(child, timeoutMs, () => {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  });
}

/** A child's exit code and output; `kill` ends it once timeoutMs have passed. */
export function completionOf(child: ChildProcess, timeoutMs: number, kill: () => void): Promise<Completion> {
  return new Promise((resolve) => {
    let output = '';
    const keep = (chunk: Buffer) => {
      if (output.length < 4096) output += chunk.toString('utf8');
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.once('error', () => {
      clearTimeout(timer);
      resolve({ exitCode: 127, timedOut, output });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: timedOut ? -1 : (code ?? -1), timedOut, output: output.slice(0, 4096) });
    });
  });
}

/**
 * Stops the processes named by pid files under `dir` (left by a kubelet that did not stop
 * cleanly) and waits until they are gone, so their addresses and ports are free again.
 */
export async function killLeftovers(dir: string): Promise<number[]> {
  const killed: number[] = [];
  for (const file of findPidFiles(dir)) {
    const [pidText, started] = readFileSync(file, 'utf8').trim().split(' ');
    rmSync(file, { force: true });
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 1 || !started || startTimeOf(pid) !== started) continue;
    try {
      process.kill(-pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      /* already gone */
    }
  }
  for (let i = 0; i < 100 && killed.some((pid) => startTimeOf(pid) !== undefined); i++)
    await new Promise((r) => setTimeout(r, 50));
  return killed;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), undefined when gone or a zombie. */
function startTimeOf(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

function findPidFiles(dir: string, depth = 0): string[] {
  if (depth > 4) return [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) =>
    e.isDirectory() ? findPidFiles(join(dir, e.name), depth + 1) : e.name.endsWith('.pid') ? [join(dir, e.name)] : [],
  );
}
