// One process of the operator stack (a function process or the queue's Redis): started in
// its own process group with its output in a log file, awaited until it serves, stopped with
// SIGTERM, then SIGKILL after a grace period, and verified gone.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { get, tail } from './readiness.ts';
import { isRunning } from './processes.ts';
import { ephemeralPort } from './ports.ts';

/** A TCP port free on 127.0.0.1 now (the kernel's choice). */
export const freeLoopbackPort = ephemeralPort;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StackProcess {
  readonly name: string;
  readonly pid: number;
  readonly log: string;
  /** Running (not a zombie). */
  alive(): boolean;
  /** Sends one signal to the process group (SIGKILL: at once, nothing drains). */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, SIGKILL after graceMs; resolves once the process is gone (throws if it is not). */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly log: string;
  /** Written to the process' standard input, then closed (a secret never goes on a command line). */
  readonly stdin?: string;
}

export function spawnStackProcess(options: SpawnOptions): StackProcess {
  const fd = openSync(options.log, 'a');
  let pid: number;
  let exited = false;
  try {
    const child = spawn(options.command, [...options.args], {
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', fd, fd],
      env: options.env,
      cwd: options.cwd,
    });
    if (options.stdin !== undefined) {
      child.stdin?.on('error', () => {
        /* the process exited before reading: its log says why */
      });
      child.stdin?.end(options.stdin);
    }
    if (child.pid === undefined)
      throw new Error(`could not start ${options.name} (${options.command}); see ${options.log}`);
    pid = child.pid;
    // Reaped here, so a dead child never lingers as a zombie that looks alive.
    child.once('exit', () => {
      exited = true;
    });
    child.unref();
  } finally {
    closeSync(fd);
  }
  const alive = () => !exited && isRunning(pid);
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* already gone */
    }
  };
  return {
    name: options.name,
    pid,
    log: options.log,
    alive,
    signal,
    async stop(graceMs = 15_000) {
      if (!alive()) return;
      signal('SIGTERM');
      const deadline = Date.now() + graceMs;
      while (alive() && Date.now() < deadline) await sleep(50);
      if (alive()) signal('SIGKILL');
      for (let i = 0; i < 100 && alive(); i++) await sleep(50);
      if (alive()) throw new Error(`${options.name} (pid ${pid}) survived SIGKILL`);
    },
  };
}

/** Polls url until it answers 200; fails early, with the log's tail, when the process exits. */
export async function waitServing(proc: StackProcess, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    if (!proc.alive()) throw new Error(`${proc.name} exited while starting; ${proc.log}:\n${tail(proc.log)}`);
    try {
      const reply = await get(url, {}, 2_000);
      if (reply.status === 200) return;
      last = `${reply.status} ${reply.body.slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${proc.name} not ready at ${url} within ${timeoutMs / 1000}s (last: ${last}); ${proc.log}:\n${tail(proc.log)}`,
      );
    await sleep(100);
  }
}
