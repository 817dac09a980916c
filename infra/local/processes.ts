// Detached processes of an environment: each starts in its own process group (so `up` can
// return while they run) and is stopped by group: SIGTERM, a grace period, then SIGKILL.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
}

function stat(pid: number): { state: string; ppid: number } | undefined {
  try {
    // "pid (comm) state ppid ..." where comm may hold spaces and parentheses.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: state ?? '?', ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Running (not a zombie) and, when match is given, its command line contains match. */
export function isRunning(pid: number, match?: string): boolean {
  const s = stat(pid);
  if (!s || s.state === 'Z' || s.state === 'X') return false;
  return match === undefined || (cmdline(pid)?.includes(match) ?? false);
}

export function spawnDetached(
  command: string,
  args: string[],
  log: string,
  env?: NodeJS.ProcessEnv,
  cwd?: string,
): number {
  const fd = openSync(log, 'a');
  try {
    const child = spawn(command, args, { detached: true, stdio: ['ignore', fd, fd], env: env ?? process.env, cwd });
    if (child.pid === undefined) throw new Error(`could not start ${command}; see ${log}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((f) => /^\d+$/.test(f))
    .map(Number);
}

/** The given pids and all their running descendants. */
export function withDescendants(roots: number[]): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const s = stat(pid);
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const found = new Set<number>();
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (found.has(pid)) continue;
    found.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...found].filter((pid) => isRunning(pid));
}

/** Running processes whose command line contains text (an environment's directory). */
export function processesMentioning(text: string): number[] {
  return allPids().filter((pid) => pid !== process.pid && isRunning(pid) && (cmdline(pid)?.includes(text) ?? false));
}

function signal(pid: number, sig: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    // already gone
  }
}

export interface Target {
  pid: number;
  match: string;
}

/**
 * Signals each target's process group (only when its leader is ours or gone, never a
 * reused pid) and every pid in extra; SIGKILL whatever is left after graceMs.
 */
export function signalAll(targets: Target[], extra: number[], sig: NodeJS.Signals): void {
  for (const t of targets) {
    const leaderOurs = isRunning(t.pid, t.match);
    if (leaderOurs || !isRunning(t.pid)) signal(t.pid, sig, true);
  }
  for (const pid of extra) signal(pid, sig, false);
}

export async function stopAll(targets: Target[], extra: number[], graceMs: number): Promise<number[]> {
  const alive = () => [
    ...targets.filter((t) => isRunning(t.pid, t.match)).map((t) => t.pid),
    ...extra.filter((p) => isRunning(p)),
  ];
  signalAll(targets, extra, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive().length > 0 && Date.now() < deadline) await sleep(50);
  signalAll(targets, extra, 'SIGKILL');
  for (let i = 0; i < 40 && alive().length > 0; i++) await sleep(50);
  return alive();
}
