// The kubelet's command line (pure):
//   --kubeconfig <path> --state-dir <dir> --nodes <N> --pod-ip-prefix 127.X --control-port <port>
//   [--heartbeat-ms 1000] [--backoff-base-ms 1000] [--backoff-cap-ms 10000] [--log-level info]
//   [--env-name local] (tags its partition rules) [--zones zone-a,zone-a,zone-b] (node i's zone)
//   [--probe-period-scale 1] (every probe runs that many times less often than its pod asks,
//   and may take that many times longer: a fleet of pods on a few cores; a real node runs its
//   own pods' probes on its own CPUs)
//   [--runtime process|container] (process: pods as processes at 127.X addresses; container: pods
//   as OCI containers on the environment's own podman network 10.X.0.0/16, podman-runtime.ts)
import { parsePrefix } from './ip-allocation.ts';

export interface KubeletSettings {
  readonly kubeconfig: string;
  readonly stateDir: string;
  readonly nodes: number;
  readonly podIpPrefix: string;
  readonly controlPort: number;
  readonly heartbeatMs: number;
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  readonly logLevel: string;
  readonly envName: string;
  /** Zone of node i (label topology.kubernetes.io/zone); nodes past the list go round-robin. */
  readonly zones: readonly string[];
  /** Probes run every periodSeconds x this (1: as the pod asks). */
  readonly probePeriodScale: number;
  readonly runtime: 'process' | 'container';
}

export const usage =
  'usage: kubelet --kubeconfig <path> --state-dir <dir> --nodes <N> --pod-ip-prefix 127.X --control-port <port> [--heartbeat-ms 1000] [--backoff-base-ms 1000] [--backoff-cap-ms 10000] [--log-level info] [--env-name local] [--zones a,b,...] [--probe-period-scale 1] [--runtime process|container]';

export function parseArgs(argv: readonly string[]): KubeletSettings {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s, 2) : [undefined, undefined];
    if (flag === undefined) throw new Error(`unexpected argument "${arg}"; ${usage}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${flag} needs a value; ${usage}`);
    values.set(flag, value);
  }
  const known = [
    'kubeconfig',
    'state-dir',
    'nodes',
    'pod-ip-prefix',
    'control-port',
    'heartbeat-ms',
    'backoff-base-ms',
    'backoff-cap-ms',
    'log-level',
    'env-name',
    'zones',
    'probe-period-scale',
    'runtime',
  ];
  for (const flag of values.keys()) if (!known.includes(flag)) throw new Error(`unknown flag --${flag}; ${usage}`);
  const required = (flag: string) => {
    const v = values.get(flag);
    if (!v) throw new Error(`--${flag} is required; ${usage}`);
    return v;
  };
  const int = (flag: string, fallback: number | undefined, min: number, max: number) => {
    const text = fallback === undefined ? required(flag) : (values.get(flag) ?? String(fallback));
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new Error(`--${flag} must be an integer in ${min}..${max}, got "${text}"`);
    return n;
  };
  return Object.freeze({
    kubeconfig: required('kubeconfig'),
    stateDir: required('state-dir'),
    nodes: int('nodes', undefined, 1, 254),
    podIpPrefix: parsePrefix(required('pod-ip-prefix')),
    controlPort: int('control-port', undefined, 0, 65535),
    heartbeatMs: int('heartbeat-ms', 1000, 100, 60_000),
    backoffBaseMs: int('backoff-base-ms', 1000, 0, 600_000),
    backoffCapMs: int('backoff-cap-ms', 10_000, 0, 600_000),
    logLevel: values.get('log-level') ?? 'info',
    envName: values.get('env-name') ?? 'local',
    zones: Object.freeze((values.get('zones') ?? '').split(',').filter(Boolean)),
    probePeriodScale: int('probe-period-scale', 1, 1, 60),
    runtime: runtimeOf(values.get('runtime') ?? 'process'),
  });
}

function runtimeOf(text: string): KubeletSettings['runtime'] {
  if (text === 'process' || text === 'container') return text;
  throw new Error(`--runtime must be process or container, got "${text}"`);
}
