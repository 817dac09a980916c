// `npm run bench -- coldstart [RUNS]`: how long a scaled-from-zero ingest takes to answer.
// Each run starts a fresh process (`node dist/start.js ingest`, the bundle the image runs; the
// TypeScript sources through tsx as `npm start` runs them; and the image itself, from `podman
// run` on) and posts one CloudEvent every few milliseconds until one gets 202: start -> first
// 202, medians over RUNS (default 9). A real redis-server is the queue. The bundle (`npm run
// build`) and the image (`npm run image`, cached) are built first. The container shares the
// host's network (test/support/knredis-image.ts), so its figure is the image's start, not NAT's.
// The processes get the environment a container would (PATH and their settings), not this
// shell's: a NODE_EXTRA_CA_CERTS of the machine alone costs Node 40 ms at start here. Two floors
// say what the machine costs before any knredis code runs: Node printing one byte, and podman
// starting a container of the image that prints one byte.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { podman, podmanRun, requireKnredisImage, type ContainerOptions } from '../support/knredis-image.ts';
import { freePort, startRedis } from '../support/redis-server.ts';
import { unreachableKubeconfig } from '../support/unreachable-kubeconfig.ts';
import { percentile, type BenchResult } from './table.ts';

const GOAL_MS = 300;

/** Where the functions' settings are: the host's files, or the container's. */
interface Settings {
  readonly env: Readonly<Record<string, string>>;
  readonly kubeconfig: string;
  readonly port: number;
}

interface Variant {
  readonly name: string;
  /** `answer`: the first 202 from ingest; `output`: the first byte on stdout (a floor). */
  readonly until: 'answer' | 'output';
  /** The argv that starts it, its whole environment, and what to do once it is killed. */
  start(settings: Settings): { argv: string[]; env: Record<string, string>; after?: () => Promise<unknown> };
}

/** What a container's process gets, and no more of this machine's environment. */
const bareEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' });

const processVariant = (name: string, argv: string[], until: Variant['until'] = 'answer'): Variant => ({
  name,
  until,
  start: ({ env, kubeconfig, port }) => ({
    argv,
    env: { ...bareEnv(), ...env, KUBECONFIG: kubeconfig, PORT: String(port) },
  }),
});

/** podman run of the image with `args`; killing `podman run` leaves its container, removed by name. */
const containerVariant = (
  name: string,
  until: Variant['until'],
  options: (settings: Settings) => ContainerOptions,
): Variant => ({
  name,
  until,
  start: (settings) => {
    const { argv, name: container } = podmanRun(options(settings));
    // podman itself runs with this machine's environment; the container's is the options' env
    return {
      argv,
      env: { ...process.env } as Record<string, string>,
      after: () => podman('rm', '--force', '--time', '0', '--ignore', container),
    };
  },
});

const NODE_FLOOR = 'floor: node printing a byte';
const PROCESS = 'bundle (dist, the image)';
const TSX = 'tsx sources (npm start)';
const CONTAINER_FLOOR = 'floor: podman run, echo in the image';
const CONTAINER = 'container (podman run knredis:dev)';

const variants: Variant[] = [
  processVariant(NODE_FLOOR, ['node', '-e', "process.stdout.write('.')"], 'output'),
  processVariant(PROCESS, ['node', 'dist/start.js', 'ingest']),
  processVariant(TSX, ['node', '--import', 'tsx', 'functions/start.ts', 'ingest']),
  containerVariant(CONTAINER_FLOOR, 'output', () => ({ entrypoint: 'echo', args: ['.'] })),
  containerVariant(CONTAINER, 'answer', ({ env, kubeconfig, port }) => ({
    args: ['ingest'],
    env: { ...env, HOST: '127.0.0.1', PORT: String(port), KUBECONFIG: '/kube/config' },
    mounts: { [kubeconfig]: '/kube/config' },
  })),
];

const event = (id: number) => ({
  headers: {
    'content-type': 'application/json',
    'ce-id': `coldstart-${id}`,
    'ce-specversion': '1.0',
    'ce-source': '/apis/v1/namespaces/default',
    'ce-type': 'dev.knative.apiserver.resource.update',
  },
  body: JSON.stringify({
    apiVersion: 'cache.redis.io/v1beta1',
    kind: 'RedisCluster',
    metadata: { name: `bench-${id}`, namespace: 'default', uid: `u-${id}` },
  }),
});

/** Starts the command and waits for its first 202 (or stdout byte): milliseconds from spawn. */
async function firstAccepted(variant: Variant, settings: Settings, id: number): Promise<number> {
  const { port } = settings;
  const { argv, env, after } = variant.start(settings);
  const started = performance.now();
  const [command, ...args] = argv as [string, ...string[]];
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let output: number | undefined;
  child.stdout.once('data', () => (output = performance.now() - started));
  child.stdout.resume();
  let exited = false;
  // 'close' comes after stdout's last byte, so a floor's output is never taken for an early exit
  child.on('close', () => (exited = true));
  try {
    for (;;) {
      if (variant.until === 'output' && output !== undefined) return output;
      if (exited) throw new Error(`${variant.name} exited before it answered: ${stderr.slice(-2000)}`);
      if (variant.until === 'answer') {
        const { headers, body } = event(id);
        const status = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body }).then(
          (res) => res.status,
          () => 0,
        );
        if (status === 202) return performance.now() - started;
        if (status !== 0 && status !== 503) throw new Error(`${variant.name} answered ${status}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => (exited ? resolve(undefined) : child.once('close', resolve)));
    await after?.();
  }
}

export default async function bench(args: string[]): Promise<BenchResult> {
  const runs = Number(args[0] ?? 9);
  execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  execFileSync('bash', ['infra/image/build-image.sh'], { stdio: ['ignore', 'ignore', 'inherit'] });
  await requireKnredisImage();
  const redis = await startRedis();
  const dir = mkdtempSync(join(tmpdir(), 'knredis-coldstart-'));
  // ingest reads a kubeconfig at start; resource-mode events never reach the API server
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, unreachableKubeconfig);
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    // No API server here, so no TokenReview: the figure leaves out the first event's review
    // (one API call; later events hit ingest's cache).
    INGEST_AUTH: 'none',
  };
  const rows: (string | number)[][] = [];
  const medians: Record<string, number> = {};
  try {
    let id = 0;
    for (const variant of variants) {
      const sample: number[] = [];
      for (let i = 0; i < runs; i++)
        sample.push(await firstAccepted(variant, { env, kubeconfig, port: await freePort() }, id++));
      medians[variant.name] = percentile(sample, 50);
      const goal = variant.until === 'answer' && variant.name !== TSX ? GOAL_MS : '';
      rows.push([variant.name, runs, percentile(sample, 50), percentile(sample, 90), Math.max(...sample), goal]);
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    tables: [
      {
        title: 'ingest cold start: start (node, or podman run) -> first 202, or first byte for a floor (ms)',
        columns: ['how it runs', 'runs', 'p50', 'p90', 'max', 'goal'],
        rows,
      },
    ],
    summary: {
      ingestProcessMs: medians[PROCESS],
      ingestContainerMs: medians[CONTAINER],
      ingestTsxMs: medians[TSX],
      nodeFloorMs: medians[NODE_FLOOR],
      containerFloorMs: medians[CONTAINER_FLOOR],
    },
  };
}
