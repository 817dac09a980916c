// A loopback prefix `127.X` of this test process alone, for tests that give each fake pod its
// own address on a fixed port (the cluster engine's harness): two test runs on one machine
// (a developer's and CI's, or two suites) would otherwise start redis-servers on the same
// addresses and take over each other's clusters. X is claimed with a lock file created
// exclusively; a lock whose process is gone is taken over. 127.0 stays for everything else and
// 127.100-127.254 for the local environments (infra/local/ports.ts).
import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../../infra/local/processes.ts';

const FIRST = 20;
const LAST = 99;
const locks = join(tmpdir(), 'knredis-loopback-prefixes');

let claimed: string | undefined;

/** This process' `127.X`, claimed on the first call and released when the process exits. */
export function loopbackPrefix(): string {
  if (claimed) return claimed;
  mkdirSync(locks, { recursive: true });
  for (let x = FIRST; x <= LAST; x++) {
    const lock = join(locks, `127.${x}`);
    if (!claim(lock)) continue;
    claimed = `127.${x}`;
    process.once('exit', () => {
      try {
        unlinkSync(lock);
      } catch {
        // already gone: nothing to release
      }
    });
    return claimed;
  }
  throw new Error(`every loopback prefix 127.${FIRST}-127.${LAST} is claimed by a live test process (${locks})`);
}

function claim(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(readOr(lock));
    // A lock being written has no pid yet: leave it to its writer.
    if (!owner || isRunning(owner)) return false;
    try {
      unlinkSync(lock);
    } catch {
      // another process took it over first; the next attempt finds out whose it is
    }
  }
  return false;
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}
