// What `npm run dev` needs on the machine, checked before anything starts. It installs nothing
// itself (that needs root): it says what to run instead.
import { execFileSync } from 'node:child_process';
import { haveBinaries } from './binaries.ts';

export type HasCommand = (command: string) => boolean;

export const hasCommand: HasCommand = (command) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** The problems, each with what to run; empty when all is there. */
export function missingPrerequisites(has: HasCommand = hasCommand, binariesBuilt: boolean = haveBinaries()): string[] {
  const problems: string[] = [];
  const packages = ['redis-server', 'openssl'].filter((c) => !has(c));
  if (packages.length > 0) {
    problems.push(`${packages.join(' and ')} ${packages.length > 1 ? 'are' : 'is'} missing (pods and the queue run redis-server; certificates need openssl). Run:\n    bash infra/local/install-packages.sh      # apt-get; asks for sudo when not root`);
  }
  if (!binariesBuilt && !has('go')) {
    problems.push('go is missing, and the control plane is not built yet (it is built from source once, then cached). Install Go >= 1.26 from https://go.dev/dl/ and put it on PATH, then run npm run dev again.');
  }
  return problems;
}
