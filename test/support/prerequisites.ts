// Prerequisites of the integration and e2e suites. A missing one throws: in CI and on a
// developer's machine alike it fails the run with what to install, never a skip.
import { execFileSync } from 'node:child_process';

const found = new Map<string, boolean>();

export function requireCommand(command: string, hint = 'see README.md, "Set-up"'): void {
  if (!found.has(command)) {
    try {
      execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
      found.set(command, true);
    } catch {
      found.set(command, false);
    }
  }
  if (!found.get(command)) throw new Error(`prerequisite missing: '${command}' is not on PATH (${hint})`);
}
