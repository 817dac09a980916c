// The local kubelet process (contract with infra/local/environment.ts):
//   node --import tsx infra/local/kubelet/main.ts --kubeconfig <path> --state-dir <dir>
//        --nodes <N> --pod-ip-prefix 127.X --control-port <port>
// prints `kubelet ready <controlURL>` on stdout once its nodes are registered, logs JSON on
// stderr, and on SIGTERM/SIGINT stops its pods' processes and exits 0.
import { pino } from 'pino';
import { createLogger } from '../../../shared/io/log.ts';
import { parseArgs } from './cli-args.ts';
import { startKubelet } from './kubelet.ts';

let settings;
try {
  settings = parseArgs(process.argv.slice(2));
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(2);
}
const log = createLogger({ name: 'kubelet', level: settings.logLevel, destination: pino.destination(2) });

try {
  const kubelet = await startKubelet(settings, log);
  process.stdout.write(`kubelet ready ${kubelet.controlUrl}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    void kubelet.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err: err instanceof Error ? err.message : String(err) }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  log.fatal({ err: err instanceof Error ? err.message : String(err) }, 'kubelet failed to start');
  process.exit(1);
}
