// A bench's helper process, so that its work is measured apart from the bench's own: the file
// runs itself as the child (`runsAsChild`), which posts one report back; the parent gets it.
import { fork } from 'node:child_process';

/** Runs `file` (through tsx) with `spec` as its argument and resolves with the report it posts. */
export function reportOfChild<Report>(file: string, spec: unknown, what: string): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = fork(file, [JSON.stringify(spec)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: Report | undefined;
    child.on('message', (m: Report) => (report = m));
    child.once('exit', (code) =>
      report ? resolve(report) : reject(new Error(`${what} exited with ${code} before its report`)),
    );
  });
}

/** In the child: runs `work` on the spec the parent passed, posts its report and exits. */
export async function runAsChild<Spec, Report>(work: (spec: Spec) => Promise<Report>): Promise<void> {
  const report = await work(JSON.parse(process.argv[2]!) as Spec);
  process.send!(report, () => process.exit(0));
}
