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
  readonly at: number;
}

export interface RunningProcess {
  readonly pid: number;
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
    child = spawn(plan.program, [...plan.args], { cwd: plan.cwd, env: { ...plan.env }, detached: true, stdio: ['ignore', out, out] });
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
    writeFileSync(pidFile, String(pid));
  }
  return {
    pid, startedAt: Date.now(), exited,
    isAlive: () => alive,
    signal(signal) {
      if (!alive || pid <= 0) return false;
      try { process.kill(-pid, signal); return true; } catch { /* group gone: try the process */ }
      try { process.kill(pid, signal); return true; } catch { return false; }
    },
  };
}

/** Runs a short command (exec probe, preStop) to completion within timeoutMs. */
export function runToCompletion(plan: ProcessPlan, timeoutMs: number): Promise<{ exitCode: number; timedOut: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(plan.program, [...plan.args], { cwd: plan.cwd, env: { ...plan.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => { if (output.length < 4096) output += chunk.toString('utf8'); };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-(child.pid ?? 0), 'SIGKILL'); } catch { child.kill('SIGKILL'); }
    }, timeoutMs);
    child.once('error', () => { clearTimeout(timer); resolve({ exitCode: 127, timedOut, output }); });
    child.once('close', (code) => { clearTimeout(timer); resolve({ exitCode: timedOut ? -1 : (code ?? -1), timedOut, output: output.slice(0, 4096) }); });
  });
}

/** Stops the processes named by pid files under `dir` (left by a kubelet that did not stop cleanly). */
export function killLeftovers(dir: string): number[] {
  const killed: number[] = [];
  for (const file of findPidFiles(dir)) {
    const pid = Number(readFileSync(file, 'utf8'));
    rmSync(file, { force: true });
    if (!Number.isInteger(pid) || pid <= 1 || !isPodProcess(pid)) continue;
    try { process.kill(-pid, 'SIGKILL'); killed.push(pid); } catch { /* already gone */ }
  }
  return killed;
}

/** Only a process started by a kubelet carries KNREDIS_POD_IP (a recycled pid does not). */
function isPodProcess(pid: number): boolean {
  try { return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').some((v) => v.startsWith('KNREDIS_POD_IP=')); } catch { return false; }
}

function findPidFiles(dir: string, depth = 0): string[] {
  if (depth > 4) return [];
  let entries;
  try { entries = readdirSync(dir, { withFileTypes: true }); } catch { return []; }
  return entries.flatMap((e) => e.isDirectory() ? findPidFiles(join(dir, e.name), depth + 1) : e.name.endsWith('.pid') ? [join(dir, e.name)] : []);
}
