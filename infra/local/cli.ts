// `npm run local:up|down|status`: the local Kubernetes environment from the command line.
//   up     [--name N] [--nodes N] [--zones a,a,b] [--audit] [--knative]   start it (or say it is
//          already up); returns, it keeps running; --zones gives node i its zone (default
//          round-robin over 3); --audit has the API server write logs/audit.log (benchmarks
//          count requests with it); --knative installs Knative's CRDs and runs its webhooks
//          (infra/local/knative/); --runtime container runs the pods as OCI containers (podman)
//          at 10.X addresses instead of processes at 127.X (kubelet/README.md); --cert-manager
//          installs cert-manager (its CRDs, controller and CA injector: cert-manager.ts)
//   down   [--name N] [--purge]     stop every process it started; --purge also drops certs and logs
//   status [--name N] [--json]      where it is; --json prints one JSON object (DESIGN.md contract)
import { parseArgs } from 'node:util';
import { startEnvironment, stopEnvironment } from './environment.ts';
import { environmentStatus, formatStatus } from './status.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string', default: 'default' },
    nodes: { type: 'string', default: '3' },
    zones: { type: 'string', default: '' },
    json: { type: 'boolean', default: false },
    purge: { type: 'boolean', default: false },
    audit: { type: 'boolean', default: false },
    knative: { type: 'boolean', default: false },
    runtime: { type: 'string', default: 'process' },
    'cert-manager': { type: 'boolean', default: false },
  },
});
const name = values.name;
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;

async function main(): Promise<void> {
  switch (positionals[0]) {
    case 'up': {
      const nodes = Number(values.nodes);
      if (!Number.isInteger(nodes) || nodes < 1 || nodes > 254)
        throw new Error(`--nodes must be a whole number in 1..254, not '${values.nodes}'`);
      console.log(`local:up '${name}': starting`);
      const zones = values.zones.split(',').filter(Boolean);
      const runtime = values.runtime;
      if (runtime !== 'process' && runtime !== 'container')
        throw new Error(`--runtime must be process or container, not '${runtime}'`);
      const env = await startEnvironment({
        name,
        nodes,
        zones,
        audit: values.audit,
        knative: values.knative,
        runtime,
        certManager: values['cert-manager'],
        progress: (line) => console.log(`  [${elapsed()}] ${line}`),
      });
      console.log(env.alreadyUp ? `'${name}' is already up` : `'${name}' is up after ${elapsed()}`);
      console.log(formatStatus(environmentStatus(name)));
      break;
    }
    case 'down': {
      const result = await stopEnvironment(name, { purge: values.purge });
      console.log(
        result.found ? `'${name}' is down (${result.stopped.length} processes stopped)` : `'${name}' was not running`,
      );
      break;
    }
    case 'status': {
      const status = environmentStatus(name);
      console.log(values.json ? JSON.stringify(status) : formatStatus(status));
      process.exitCode = status.running ? 0 : 1;
      break;
    }
    default:
      console.error(
        'usage: tsx infra/local/cli.ts up|down|status [--name N] [--nodes N] [--zones a,b,...] [--knative] [--runtime process|container] [--cert-manager] [--json] [--purge]',
      );
      process.exitCode = 2;
  }
}

main().catch((error: unknown) => {
  console.error(`local:${positionals[0]} failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
