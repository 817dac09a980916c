// `npm run bench -- coldstart [RUNS]`: how long a scaled-from-zero ingest takes to answer.
// Each run starts a fresh process (`node dist/start.js ingest`, the bundle the image runs, and
// the TypeScript sources through tsx as `npm start` runs them) and posts one CloudEvent every few
// milliseconds until one gets 202: process start -> first 202, medians over RUNS (default 9).
// A real redis-server is the queue. The build (`npm run build`) is run first.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedis } from '../support/redis-server.ts';
import { unreachableKubeconfig } from '../support/unreachable-kubeconfig.ts';
import { percentile, type BenchResult } from './table.ts';

const GOAL_MS = 300;

interface Variant {
  readonly name: string;
  readonly command: string[];
}

const variants: Variant[] = [
  { name: 'bundle (dist, the image)', command: ['node', 'dist/start.js', 'ingest'] },
  { name: 'tsx sources (npm start)', command: ['node', '--import', 'tsx', 'functions/start.ts', 'ingest'] },
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

/** Starts the command and posts until a 202: milliseconds from spawn to that answer. */
async function firstAccepted(variant: Variant, env: NodeJS.ProcessEnv, port: number, id: number): Promise<number> {
  const started = performance.now();
  const [command, ...args] = variant.command as [string, ...string[]];
  const child = spawn(command, args, { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${variant.name} exited before it answered: ${stderr.slice(-2000)}`);
      const { headers, body } = event(id);
      const status = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body }).then(
        (res) => res.status,
        () => 0,
      );
      if (status === 202) return performance.now() - started;
      if (status !== 0 && status !== 503) throw new Error(`${variant.name} answered ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => (exited ? resolve(undefined) : child.once('exit', resolve)));
  }
}

export default async function bench(args: string[]): Promise<BenchResult> {
  const runs = Number(args[0] ?? 9);
  execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  const redis = await startRedis();
  const dir = mkdtempSync(join(tmpdir(), 'knredis-coldstart-'));
  // ingest reads a kubeconfig at start; resource-mode events never reach the API server
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, unreachableKubeconfig);
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    KUBECONFIG: kubeconfig,
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
      for (let i = 0; i < runs; i++) sample.push(await firstAccepted(variant, env, await freePort(), id++));
      medians[variant.name] = percentile(sample, 50);
      rows.push([variant.name, runs, percentile(sample, 50), percentile(sample, 90), Math.max(...sample), GOAL_MS]);
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    tables: [
      {
        title: 'ingest cold start: process start -> first 202 (ms)',
        columns: ['how it runs', 'runs', 'p50', 'p90', 'max', 'goal'],
        rows,
      },
    ],
    summary: { ingestProcessMs: medians['bundle (dist, the image)'], ingestTsxMs: medians['tsx sources (npm start)'] },
  };
}
