// Shared set-up of the pipeline tests: a queue name of their own, worker processes that
// are always killed afterwards, and waiting for the queue to go quiet.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { Queue } from 'bullmq';
import type { QueueRedisTarget } from '../../../shared/io/queue/connection.ts';
import { start as startIngest } from '../../../functions/ingest/index.ts';
import type { Config } from '../../../functions/start-config.ts';
import { createHttpApp } from '../../../shared/io/express-app.ts';
import { listen } from '../../../shared/io/http.ts';
import type { Logger } from '../../../shared/io/log.ts';
import { createRegistry } from '../../../shared/io/metrics.ts';

export function uniqueNames(tag: string) {
  const id = randomUUID().slice(0, 8);
  return { prefix: `t${id}`, queue: `${tag}-${id}`, list: `runs-${id}` };
}

export interface WorkerProcessConfig {
  redis: QueueRedisTarget;
  prefix: string;
  queue: string;
  list: string;
  runMs: number;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

const workerScript = new URL('./worker-process.ts', import.meta.url).pathname;

export class Processes {
  readonly children: ChildProcess[] = [];
  readonly killedAt = new Map<number, number>();

  async startWorker(config: WorkerProcessConfig): Promise<ChildProcess> {
    const child = fork(workerScript, [JSON.stringify(config)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`worker process exited with ${code} before it was ready`)));
    });
    return child;
  }

  async kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    if (signal === 'SIGKILL' && child.pid) this.killedAt.set(child.pid, Date.now());
    child.kill(signal);
    await exited;
  }

  async killAll(): Promise<void> {
    await Promise.all(this.children.map((c) => this.kill(c, 'SIGKILL')));
  }
}

/** Resolves once the queue has nothing waiting, delayed or active on `checks` polls in a row. */
export async function quiet(queue: Queue, { checks = 3, pollMs = 100, limitMs = 100_000 } = {}): Promise<void> {
  const deadline = Date.now() + limitMs;
  let calm = 0;
  while (calm < checks) {
    if (Date.now() > deadline)
      throw new Error(`queue still busy after ${limitMs} ms: ${JSON.stringify(await queue.getJobCounts())}`);
    const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    calm = Object.values(c).every((n) => n === 0) ? calm + 1 : 0;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Polls until check() is true (bounded); returns what it last saw. */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  check: (value: T) => boolean,
  limitMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; last saw ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The real ingest function on its own HTTP server (port 0), as `npm start -- ingest` runs it. */
export async function serveIngest(config: Config, log: Logger): Promise<{ url: string; close(): Promise<void> }> {
  const app = createHttpApp({});
  const direct = new Map<`${string} /${string}`, RequestListener>();
  const ingest = await startIngest({
    config,
    log,
    expressApp: async () => app,
    registry: createRegistry({ defaultMetrics: false }),
    env: {},
    addProbe: () => {},
    serveDirect: (route, handler) => direct.set(route, handler),
  });
  const server = await listen(app, 0, '127.0.0.1', direct);
  return {
    url: server.url,
    async close() {
      await server.close();
      await ingest.close();
    },
  };
}
