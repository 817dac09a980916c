// Flags of `npm run dev` (infra/local/dev.ts), parsed and validated into one frozen object.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { repoRoot, validateName } from './paths.ts';

export interface DevOptions {
  readonly help: boolean;
  /** The local environment's name (`--name`, else $KNREDIS_DEV_ENV, else `dev`). */
  readonly name: string;
  readonly nodes: number;
  /** Leave the local environment running on exit (when dev started it). */
  readonly keep: boolean;
  /** The RedisCluster applied once the operator runs; undefined with --no-sample. */
  readonly sample: string | undefined;
  readonly namespace: string;
  /** Seconds to wait for the sample to be Ready before saying it is not (dev keeps running). */
  readonly readyTimeoutS: number;
  /**
   * The operator as users deploy it (`--in-cluster`): pods as containers, cert-manager, the images
   * built, `kubectl apply -k infra/overlays/kubernetes`; else its functions run as processes here.
   */
  readonly inCluster: boolean;
}

export const devUsage = `usage: npm run dev -- [options]

Starts a local Kubernetes (infra/local), the operator (queue Redis, webhooks, ingest +
dashboard, a reconcile worker, the event source) and a sample RedisCluster; shows its
progress, then prints where to look. Ctrl-C (or SIGTERM) stops everything it started.

options:
  --name NAME        local environment to use or start (default: $KNREDIS_DEV_ENV, else "dev");
                     one that is already up is reused and left running on exit
  --nodes N          nodes of a newly started environment (default 3)
  --keep             leave the environment running on exit (the operator always stops)
  --sample FILE      the RedisCluster to apply (default infra/samples/redis-cluster-v1beta1.yaml)
  --no-sample        apply none
  --namespace NS     namespace of the sample (default "default")
  --ready-timeout S  seconds to wait for Ready before saying it is not (default 900)
  --in-cluster       deploy the operator as users do: its image built here, pods as OCI
                     containers (podman) with cluster DNS and Services, cert-manager, then
                     kubectl apply -k infra/overlays/kubernetes (needs an environment started so)
  -h, --help         this text

environment: DASHBOARD_TOKEN (the dashboard then asks for it; unset: DASHBOARD_AUTH=none on
loopback), LOG_LEVEL (of the operator's processes), KNREDIS_CACHE (where binaries and environments live, default ~/.cache/knredis).`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseDevArgs(argv: string[], env: Readonly<Record<string, string | undefined>>): DevOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h', default: false },
        name: { type: 'string' },
        nodes: { type: 'string', default: '3' },
        keep: { type: 'boolean', default: false },
        sample: { type: 'string' },
        'no-sample': { type: 'boolean', default: false },
        namespace: { type: 'string', default: 'default' },
        'ready-timeout': { type: 'string', default: '900' },
        'in-cluster': { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  const nodes = Number(v.nodes);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 254)
    throw new UsageError(`--nodes must be a whole number in 1..254, not '${v.nodes}'`);
  const readyTimeoutS = Number(v['ready-timeout']);
  if (!Number.isFinite(readyTimeoutS) || readyTimeoutS <= 0)
    throw new UsageError(`--ready-timeout must be a positive number of seconds, not '${v['ready-timeout']}'`);
  if (v.sample !== undefined && v['no-sample']) throw new UsageError('--sample and --no-sample exclude each other');
  let name: string;
  try {
    name = validateName(v.name ?? (env.KNREDIS_DEV_ENV || 'dev'));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v.namespace))
    throw new UsageError(`--namespace '${v.namespace}' is not a valid namespace name`);
  return Object.freeze({
    help: v.help,
    name,
    nodes,
    keep: v.keep,
    namespace: v.namespace,
    readyTimeoutS,
    inCluster: v['in-cluster'],
    sample: v['no-sample'] ? undefined : (v.sample ?? join(repoRoot, 'infra', 'samples', 'redis-cluster-v1beta1.yaml')),
  });
}
