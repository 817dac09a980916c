// The knredis image (`npm run image`, infra/image/) run as podman containers, for the tests and
// the cold-start benchmark. Containers share the host's network (--network host): the queue's
// redis-server of a test stays on loopback, where the container reaches it as a process would,
// and the container's port is a free port of the host, with no NAT in between. What runs in the
// container is what is under test (the image's files, its user, its bundle), not a network.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { requireCommand } from './prerequisites.ts';

const run = promisify(execFile);

/** The tag infra/image/build-image.sh gives the image it builds. */
export const KNREDIS_IMAGE = 'localhost/knredis:dev';

// runc, not crun (crun fails on cgroup-v1 hosts); the sandbox does not allow raising rlimits.
const RUNTIME_FLAGS = ['--runtime', 'runc', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

/** podman with its arguments; its stdout, trimmed. */
export async function podman(...args: string[]): Promise<string> {
  const { stdout } = await run('podman', args, { maxBuffer: 16 << 20 });
  return stdout.trim();
}

/** Fails with what to run when podman, runc or the built image is missing: never a skip. */
export async function requireKnredisImage(): Promise<void> {
  requireCommand('podman', 'Debian package podman; npm test installs it');
  requireCommand('runc', 'Debian package runc; npm test installs it');
  try {
    await podman('image', 'exists', KNREDIS_IMAGE);
  } catch {
    throw new Error(`prerequisite missing: the image ${KNREDIS_IMAGE} is not built (run npm run image)`);
  }
}

export interface ContainerOptions {
  /** The container's arguments: the functions to run (`ingest`, `reconcile`, ...). */
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** host path -> container path, mounted read-only. */
  readonly mounts?: Readonly<Record<string, string>>;
  /** Another entry point than the image's (`sh`), for looking inside the image. */
  readonly entrypoint?: string;
}

export interface Container {
  readonly name: string;
  /** The container's output so far (for a failure's message). */
  logs(): Promise<string>;
  /** Whether the container is still running. */
  running(): Promise<boolean>;
  /** Kills and removes the container. */
  remove(): Promise<void>;
}

function runArgs(name: string, options: ContainerOptions): string[] {
  return [
    ...RUNTIME_FLAGS,
    '--network',
    'host',
    '--name',
    name,
    ...Object.entries(options.env ?? {}).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
    ...Object.entries(options.mounts ?? {}).flatMap(([from, to]) => ['--volume', `${from}:${to}:ro`]),
    ...(options.entrypoint ? ['--entrypoint', options.entrypoint] : []),
    KNREDIS_IMAGE,
    ...options.args,
  ];
}

/** Starts a container of the image in the background (podman run -d). */
export async function startContainer(options: ContainerOptions): Promise<Container> {
  const name = `knredis-test-${randomUUID().slice(0, 8)}`;
  await podman('run', '--detach', ...runArgs(name, options));
  return {
    name,
    logs: () => run('podman', ['logs', name]).then(({ stdout, stderr }) => stdout + stderr),
    running: () => podman('inspect', '--format', '{{.State.Running}}', name).then((s) => s === 'true'),
    remove: () => podman('rm', '--force', '--time', '0', name).then(() => undefined),
  };
}

/** Runs a command in a fresh container of the image to its end; its stdout. */
export function runInImage(entrypoint: string, ...args: string[]): Promise<string> {
  return podman('run', '--rm', ...runArgs(`knredis-test-${randomUUID().slice(0, 8)}`, { entrypoint, args }));
}

/** The argv of `podman run` in the foreground (the container removed when it exits), and its name. */
export function podmanRun(options: ContainerOptions): { argv: string[]; name: string } {
  const name = `knredis-bench-${randomUUID().slice(0, 8)}`;
  return { argv: ['podman', 'run', '--rm', ...runArgs(name, options)], name };
}
