// Maps a container of a pod to the local process that stands for it (pure). A Redis image runs
// as the host's redis-server bound to the pod's IP; the redis_exporter image as the built
// redis_exporter listening on the pod's IP; a few tools (redis-cli, sh) run as they are, so
// init containers and exec probes work. Other images are not runnable locally.
import type { V1Container } from '@kubernetes/client-node';
import { hostPathOf, mapPaths, type PathMapping } from './path-map.ts';
import { expandReferences } from './env.ts';

export interface ProcessPlan {
  /** A program name looked up on the host PATH (a pod's shims come first), or an absolute path. */
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

export type PlanResult =
  { ok: true; plan: ProcessPlan } | { ok: false; reason: 'ImageNotRunnableLocally'; message: string };

export interface PlanInput {
  readonly container: V1Container;
  readonly podIP: string;
  /** Resolved container environment (env.ts). */
  readonly env: Readonly<Record<string, string>>;
  readonly mappings: readonly PathMapping[];
  /** Host directory standing for the container's root filesystem. */
  readonly rootDir: string;
  /** Host directory of the pod's shims (redis-cli, redis-server bound to the pod IP). */
  readonly shimDir: string;
  /** The kubelet's own PATH, appended after the shims. */
  readonly hostPath: string;
  /** The redis_exporter build-exporter.sh made, when it is there. */
  readonly redisExporter?: string | undefined;
}

const redisTools = new Set([
  'redis-server',
  'redis-cli',
  'redis-sentinel',
  'redis-benchmark',
  'redis-check-aof',
  'redis-check-rdb',
]);
const shellTools = new Set([
  'sh',
  'bash',
  'sleep',
  'true',
  'false',
  'cat',
  'echo',
  'cp',
  'mkdir',
  'ls',
  'chmod',
  'touch',
  'env',
]);

export const runnableImagesText =
  'images that run locally: redis (any tag, any registry) with redis-server, redis-cli or sh; busybox or alpine with sh and basic tools; redis_exporter';

type ImageFamily = 'redis' | 'shell' | 'exporter' | undefined;

/** The port the redis_exporter image listens on unless told otherwise. */
const exporterDefaultPort = 9121;

/** `redis:7`, `docker.io/library/redis:7.2@sha256:...`, `bitnami/redis` -> redis. */
export function imageFamily(image: string): ImageFamily {
  const withoutDigest = image.split('@')[0] ?? '';
  const lastPart = withoutDigest.split('/').pop() ?? '';
  const name = lastPart.split(':')[0];
  if (name === 'redis') return 'redis';
  if (name === 'busybox' || name === 'alpine') return 'shell';
  if (name === 'redis_exporter') return 'exporter';
  return undefined;
}

/** The image's default working directory (the Redis image's WORKDIR is /data). */
function defaultWorkingDir(family: ImageFamily): string {
  return family === 'redis' ? '/data' : '/';
}

export function planProcess(input: PlanInput): PlanResult {
  const { container } = input;
  const image = container.image ?? '';
  const family = imageFamily(image);
  if (family === undefined) return notRunnable(image, '');
  if (family === 'exporter') return planExporter(input);
  const expand = expander(input);
  let argv =
    family === 'redis'
      ? redisEntrypoint(container.command ?? [], container.args ?? [])
      : [...(container.command ?? []), ...(container.args ?? [])];
  argv = argv.map(expand);
  const program = argv[0] ?? '';
  const tool = baseName(program);
  const allowed = family === 'redis' ? redisTools.has(tool) || shellTools.has(tool) : shellTools.has(tool);
  if (!allowed) return notRunnable(image, ` (command "${program}" is not available)`);
  const args = argv.slice(1);
  // redis-server listens on, and connects from, the pod's own IP (so a partition can cut pairs
  // of pods: partition.ts); later arguments override the config file's.
  if (tool === 'redis-server') args.push(...podRedisArgs(input.podIP));
  const cwd = hostCwd(input, container.workingDir || defaultWorkingDir(family));
  return { ok: true, plan: { program: tool, args, cwd, env: podEnv(input, cwd) } };
}

/**
 * The redis_exporter image (entrypoint /redis_exporter) as the binary build-exporter.sh made,
 * listening on the pod's IP at the container's port: in a pod it listens on every address of
 * the pod's network namespace, and the pod IP is the one others reach.
 */
function planExporter(input: PlanInput): PlanResult {
  const { container } = input;
  const image = container.image ?? '';
  const expand = expander(input);
  const argv = [...(container.command ?? ['redis_exporter']), ...(container.args ?? [])].map(expand);
  const program = argv[0] ?? '';
  if (baseName(program) !== 'redis_exporter') return notRunnable(image, ` (command "${program}" is not available)`);
  if (!input.redisExporter)
    return notRunnable(image, ' (redis_exporter is not built: run infra/local/build-exporter.sh)');
  const port = container.ports?.[0]?.containerPort ?? exporterDefaultPort;
  const args = [...argv.slice(1), `--web.listen-address=${input.podIP}:${port}`];
  const cwd = hostCwd(input, container.workingDir || '/');
  return { ok: true, plan: { program: input.redisExporter, args, cwd, env: podEnv(input, cwd) } };
}

/** A command's or argument's text as the host runs it: $(VAR) expanded, paths mapped, localhost the pod. */
function expander(input: PlanInput): (text: string) => string {
  return (text) => podLocalhost(mapPaths(expandReferences(text, input.env), input.mappings), input.podIP);
}

/** The host directory standing for the container's working directory. */
function hostCwd(input: PlanInput, workingDir: string): string {
  return hostPathOf(workingDir, input.mappings) ?? `${input.rootDir}${workingDir === '/' ? '' : workingDir}`;
}

/** The container's environment with paths mapped and localhost the pod, behind the pod's shims. */
function podEnv(input: PlanInput, cwd: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.env))
    env[key] = podLocalhost(mapPaths(value, input.mappings), input.podIP);
  env.PATH = `${input.shimDir}:${input.hostPath}`;
  env.KNREDIS_POD_IP = input.podIP;
  env.HOME ??= cwd;
  return env;
}

/**
 * A pod's `localhost` is its own network namespace, which the local pods do not have: the host
 * name `localhost` in a URL, a host:port or an argument of its own becomes the pod's IP (so a
 * sidecar reaches the redis-server of its pod). A word that merely contains it stays.
 */
export function podLocalhost(text: string, podIP: string): string {
  return text.replace(/(^|[\s@=,]|\/\/)localhost(?=$|[\s/:,])/g, `$1${podIP}`);
}

export function podRedisArgs(podIP: string): string[] {
  return ['--bind', podIP, '--bind-source-addr', podIP, '--daemonize', 'no'];
}

/** The Redis image's docker-entrypoint.sh: `-x`/`*.conf` first arguments run redis-server. */
export function redisEntrypoint(command: readonly string[], args: readonly string[]): string[] {
  let argv = command.length > 0 ? [...command, ...args] : args.length > 0 ? [...args] : ['redis-server'];
  if (baseName(argv[0] ?? '') === 'docker-entrypoint.sh') argv = argv.slice(1);
  if (argv.length === 0) return ['redis-server'];
  const first = argv[0] ?? '';
  if (first.startsWith('-') || first.endsWith('.conf')) return ['redis-server', ...argv];
  return argv;
}

/** An exec probe or preStop command: the same shims, paths and environment as the container. */
export function planExec(command: readonly string[], base: ProcessPlan, mappings: readonly PathMapping[]): ProcessPlan {
  const argv = command.map((s) =>
    podLocalhost(mapPaths(expandReferences(s, base.env), mappings), base.env.KNREDIS_POD_IP ?? ''),
  );
  return { program: argv[0] ?? 'true', args: argv.slice(1), cwd: base.cwd, env: base.env };
}

function notRunnable(image: string, detail: string): PlanResult {
  return {
    ok: false,
    reason: 'ImageNotRunnableLocally',
    message: `image "${image}" cannot run on the local kubelet${detail}; ${runnableImagesText}`,
  };
}

function baseName(path: string): string {
  return path.split('/').pop() ?? path;
}
