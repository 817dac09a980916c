// What a process has used, read from /proc (Linux): for benchmarks that run the functions as
// processes of their own and account for each.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU seconds (user + system) the process has used; 0 once it is gone. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    // Fields after the command (which may hold spaces) in parentheses; utime and stime are 14 and 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return 0;
  }
}

/** Resident memory of a process, in MB (0 once it is gone). */
export function rssMb(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Math.round(Number(kb) / 1024);
  } catch {
    return 0;
  }
}
