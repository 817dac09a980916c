// Maps a container of a pod to the local process that stands for it (pure). A Redis image runs
// as the host's redis-server bound to the pod's IP; a few tools (redis-cli, sh) run as they
// are, so init containers and exec probes work. Other images are not runnable locally.
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
  'images that run locally: redis (any tag, any registry) with redis-server, redis-cli or sh; busybox or alpine with sh and basic tools';

type ImageFamily = 'redis' | 'shell' | undefined;

/** `redis:7`, `docker.io/library/redis:7.2@sha256:...`, `bitnami/redis` -> redis. */
export function imageFamily(image: string): ImageFamily {
  const withoutDigest = image.split('@')[0] ?? '';
  const lastPart = withoutDigest.split('/').pop() ?? '';
  const name = lastPart.split(':')[0];
  if (name === 'redis') return 'redis';
  if (name === 'busybox' || name === 'alpine') return 'shell';
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
  const expand = (s: string) => mapPaths(expandReferences(s, input.env), input.mappings);
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
  const workingDir = container.workingDir || defaultWorkingDir(family);
  const cwd = hostPathOf(workingDir, input.mappings) ?? `${input.rootDir}${workingDir === '/' ? '' : workingDir}`;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.env)) env[key] = mapPaths(value, input.mappings);
  env.PATH = `${input.shimDir}:${input.hostPath}`;
  env.KNREDIS_POD_IP = input.podIP;
  env.HOME ??= cwd;
  return { ok: true, plan: { program: tool, args, cwd, env } };
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
  const argv = command.map((s) => mapPaths(expandReferences(s, base.env), mappings));
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
