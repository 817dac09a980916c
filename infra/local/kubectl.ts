// kubectl against an environment, for the code that installs into it (cert-manager, Knative's
// webhooks, the API, the operator's overlay) and for the tests: the built binary with the
// environment's kubeconfig; resolves kubectl's stdout, rejects with its own words. Values that
// must stay secret go on its standard input, never in its arguments, so an error may name them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface KubectlOptions {
  /** Its standard input (a manifest, a Secret's values). */
  readonly input?: string;
  readonly timeoutMs?: number;
}

export type Kubectl = (args: string[], options?: KubectlOptions) => Promise<string>;

export function kubectlOf(
  env: { readonly kubectl: string; readonly kubeconfig: string },
  defaultTimeoutMs = 120_000,
): Kubectl {
  return async (args, options = {}) => {
    const child = run(env.kubectl, ['--kubeconfig', env.kubeconfig, ...args], {
      timeout: options.timeoutMs ?? defaultTimeoutMs,
      maxBuffer: 64 << 20,
    });
    child.child.stdin?.end(options.input ?? '');
    try {
      return (await child).stdout;
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`, { cause: error });
    }
  };
}
