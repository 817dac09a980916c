// The operator as separate processes against a Kubernetes API server, for `npm run dev` and
// the e2e tests: a persistent queue Redis, webhook certificates and the webhooks process (the
// CRD and the validating webhook installed pointing at it), `ingest dashboard` in one process,
// N `reconcile` workers and the built-in event source posting to ingest (or none, for another
// source such as Knative's ApiServerSource adapter). Each function process
// is `node --import tsx functions/start.ts NAME...` configured by the environment, exactly as
// `npm start -- NAME...`, or with `runs: 'bundle'` the image's `node dist/start.js NAME...`
// (built by `npm run build`). stop() ends everything; so does this process exiting.
//
// Ingest authenticates its senders as in a cluster (TokenReview on this API server): the
// built-in event source sends a token of the ServiceAccount knredis-system/knredis-event-source
// got from the TokenRequest API (./sender-token.ts), renewed in a file as a kubelet would.
// The dashboard is served without a token (DASHBOARD_AUTH=none, loopback only) unless
// extraEnv gives DASHBOARD_TOKEN.
//
//   const stack = await startOperatorStack({ kubeconfig, kubectl, dir, workers: 2 });
//   stack.urls.dashboard; stack.stopWorker(0, 'SIGKILL'); await stack.startWorker(0);
//   await stack.stop();
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { makeWebhookCerts, type WebhookCerts } from '../webhooks/certs.ts';
import { installRedisClusterApi, uninstallValidatingWebhook } from '../webhooks/install.ts';
import { kubectlOf } from './kubectl.ts';
import { repoRoot } from './paths.ts';
import { startQueueRedis, type QueueRedis } from './queue-redis.ts';
import { keepTokenFile, type TokenFile } from './sender-token.ts';
import { freeLoopbackPort, spawnStackProcess, waitServing, type StackProcess } from './stack-process.ts';

export interface OperatorStackOptions {
  readonly kubeconfig: string;
  /** Path of kubectl. */
  readonly kubectl: string;
  /** Everything of the stack goes here: queue data, certificates, logs/. */
  readonly dir: string;
  /** Progress lines (`npm run dev` shows them). */
  readonly log?: (line: string) => void;
  /** Reconcile worker processes (default 1). */
  readonly workers?: number;
  /** More settings for every function process (RESYNC_INTERVAL_MS, LOG_LEVEL, WATCH_NAMESPACE...). */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** What the function processes run: the TypeScript sources through tsx (default), or the
   * bundle in dist/ that the image runs (build it first: `npm run build`). */
  readonly runs?: 'sources' | 'bundle';
  /** Name of the ValidatingWebhookConfiguration (default knredis-stack-<pid>). */
  readonly webhookConfigurationName?: string;
  /** On SIGINT/SIGTERM/SIGHUP: 'kill' (default) kills the stack at once and exits when nothing
   * else handles the signal; 'none' leaves signals to the caller, who then calls stop(). */
  readonly onSignal?: 'kill' | 'none';
  /** 'built-in' (default): knredis' own event source posts to ingest. 'none': no event source
   * is started; another one (Knative's ApiServerSource adapter) posts to urls.ingest. */
  readonly eventSource?: 'built-in' | 'none';
}

export interface StackUrls {
  /** Where CloudEvents go (K_SINK). */
  readonly ingest: string;
  /** bull-board. */
  readonly dashboard: string;
  /** /metrics of the ingest+dashboard process (queue depth, job counts). */
  readonly metrics: string;
  /** /metrics of each worker (controller_runtime_reconcile_total ...), by index. */
  readonly workerMetrics: readonly string[];
  /** https://127.0.0.1:PORT of the webhooks. */
  readonly webhook: string;
}

export interface OperatorStack {
  readonly dir: string;
  /** The queue's Redis: its URL, and its password (REDIS_PASSWORD of the functions). */
  readonly queueRedis: { readonly url: string; readonly password: string };
  readonly certs: WebhookCerts;
  readonly webhookConfigurationName: string;
  readonly urls: StackUrls;
  /** Log files by process name (`front`, `worker-0`, `event-source`, `webhooks`, `queue-redis`). */
  readonly logs: Readonly<Record<string, string>>;
  /** Pids by process name (current ones: a restarted worker has a new pid). */
  pids(): Record<string, number>;
  /** Signals worker i (SIGKILL: dies mid-operation); resolves once it is gone. */
  stopWorker(index: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts worker i again (after stopWorker) and waits until it is ready. */
  startWorker(index: number): Promise<void>;
  /** Stops the queue's Redis (SIGTERM: it writes its append-only file and exits): a queue outage. */
  stopQueue(): Promise<void>;
  /** Starts the queue's Redis again on the same port and data, and waits until it answers. */
  startQueue(): Promise<void>;
  /** Stops every process (SIGTERM, then SIGKILL), verifies they are gone, and removes the
   * ValidatingWebhookConfiguration it created. Safe to call more than once. */
  stop(): Promise<void>;
}

const startArgs = {
  sources: ['--import', 'tsx', join(repoRoot, 'functions', 'start.ts')],
  bundle: [join(repoRoot, 'dist', 'start.js')],
} as const;

export async function startOperatorStack(options: OperatorStackOptions): Promise<OperatorStack> {
  const say = options.log ?? (() => {});
  const logsDir = join(options.dir, 'logs');
  await mkdir(logsDir, { recursive: true });
  const kubectl = kubectlOf({ kubectl: options.kubectl, kubeconfig: options.kubeconfig });
  const configurationName = options.webhookConfigurationName ?? `knredis-stack-${process.pid}`;
  const running = new Map<string, StackProcess>();
  let senderToken: TokenFile | undefined;
  let installed = false;
  let stopped = false;

  // Everything started is killed on exit, even when a test fails or the caller forgets stop().
  const killNow = () => {
    for (const p of running.values()) if (p.alive()) p.signal('SIGKILL');
    if (installed) {
      installed = false;
      try {
        execFileSync(
          options.kubectl,
          [
            '--kubeconfig',
            options.kubeconfig,
            'delete',
            'validatingwebhookconfiguration',
            configurationName,
            '--ignore-not-found',
            '--request-timeout=5s',
          ],
          { stdio: 'ignore', timeout: 10_000 },
        );
      } catch {
        /* the API server may be gone already */
      }
    }
  };
  const onExit = () => killNow();
  const onSignal = (signal: NodeJS.Signals) => {
    killNow();
    // Others listening (a test environment, `npm run dev`) decide about exiting.
    if (process.listenerCount(signal) === 0)
      process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as Record<string, number>)[signal]!);
  };
  const signals: NodeJS.Signals[] = options.onSignal === 'none' ? [] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
  process.on('exit', onExit);
  for (const s of signals) process.once(s, onSignal);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    senderToken?.stop();
    // Producers of work first, then the workers (they drain), then the queue and the webhooks.
    const order = [
      ['event-source'],
      ['front'],
      [...running.keys()].filter((n) => n.startsWith('worker-')),
      ['webhooks'],
      ['queue-redis'],
    ];
    const failures: string[] = [];
    for (const names of order) {
      await Promise.all(
        names.map(async (name) => {
          await running
            .get(name)
            ?.stop(name.startsWith('worker-') ? 30_000 : 10_000)
            .catch((error: Error) => failures.push(error.message));
        }),
      );
    }
    if (installed) {
      await uninstallValidatingWebhook(kubectl, configurationName).catch((error: Error) =>
        failures.push(error.message),
      );
      installed = false;
    }
    process.off('exit', onExit);
    for (const s of signals) process.off(s, onSignal);
    if (failures.length > 0) throw new Error(`operator stack did not stop cleanly:\n  ${failures.join('\n  ')}`);
  };

  const baseEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: process.env.NODE_ENV,
    KUBECONFIG: options.kubeconfig,
    HOST: '127.0.0.1',
    ...(options.extraEnv?.DASHBOARD_TOKEN ? {} : { DASHBOARD_AUTH: 'none' }),
    ...options.extraEnv,
  };
  const startFunctions = async (name: string, functions: string[], env: NodeJS.ProcessEnv, fixedPort?: number) => {
    const port = fixedPort ?? (await freeLoopbackPort());
    const proc = spawnStackProcess({
      name,
      command: process.execPath,
      args: [...startArgs[options.runs ?? 'sources'], ...functions],
      cwd: repoRoot,
      env: { ...baseEnv, ...env, PORT: String(port) },
      log: join(logsDir, `${name}.log`),
    });
    running.set(name, proc);
    await waitServing(proc, `http://127.0.0.1:${port}/readyz`);
    return `http://127.0.0.1:${port}`;
  };

  try {
    // 1: the queue's Redis
    say('starting the queue Redis');
    const queue: QueueRedis = await startQueueRedis(join(options.dir, 'queue-redis'));
    running.set('queue-redis', queue.process);
    const redisEnv = { REDIS_URL: queue.url, REDIS_PASSWORD: queue.password };
    // 2: webhooks, then the API pointing at them
    say('starting the webhooks');
    const certs = await makeWebhookCerts(join(options.dir, 'certs'));
    const webhookPort = await freeLoopbackPort();
    const webhook = `https://127.0.0.1:${webhookPort}`;
    const webhooksHttp = startFunctions('webhooks', ['webhooks'], {
      WEBHOOK_PORT: String(webhookPort),
      WEBHOOK_TLS_CERT: certs.cert,
      WEBHOOK_TLS_KEY: certs.key,
    });
    // 3: ingest + dashboard, and the workers, started side by side (each takes a while to load)
    say('starting ingest + dashboard and the reconcile workers');
    const front = startFunctions('front', ['ingest', 'dashboard'], redisEnv);
    const workerCount = options.workers ?? 1;
    const startWorkerProcess = (i: number, port?: number) =>
      startFunctions(`worker-${i}`, ['reconcile'], redisEnv, port);
    const workerUrls = Array.from({ length: workerCount }, (_, i) => startWorkerProcess(i));
    await webhooksHttp;
    say('installing the RedisCluster CRD and the validating webhook');
    installed = true;
    await installRedisClusterApi(kubectl, { url: webhook, caBundle: certs.caBundle }, configurationName);
    const ingest = await front;
    const workers = await Promise.all(workerUrls);
    // 4: the event source last: it sends an add for every object that exists
    if (options.eventSource !== 'none') {
      say('starting the event source');
      const kc = new KubeConfig();
      kc.loadFromFile(options.kubeconfig);
      senderToken = await keepTokenFile(kc, join(options.dir, 'event-source-token'), {
        onError: (error) => say(`renewing the event source's token failed: ${(error as Error).message}`),
      });
      await startFunctions('event-source', ['event-source'], {
        K_SINK: `${ingest}/`,
        EVENT_SOURCE_TOKEN_FILE: senderToken.path,
      });
    }
    say('operator stack ready');

    const logs = () => Object.fromEntries([...running].map(([name, p]) => [name, p.log]));
    return {
      dir: options.dir,
      queueRedis: { url: queue.url, password: queue.password },
      certs,
      webhookConfigurationName: configurationName,
      urls: {
        ingest: `${ingest}/`,
        dashboard: `${ingest}/admin/queues`,
        metrics: `${ingest}/metrics`,
        workerMetrics: workers.map((w) => `${w}/metrics`),
        webhook,
      },
      get logs() {
        return logs();
      },
      pids: () => Object.fromEntries([...running].filter(([, p]) => p.alive()).map(([name, p]) => [name, p.pid])),
      async stopWorker(index, signal = 'SIGTERM') {
        const proc = running.get(`worker-${index}`);
        if (!proc) throw new Error(`no worker ${index}`);
        if (signal === 'SIGTERM') return proc.stop(30_000);
        proc.signal(signal);
        for (let i = 0; i < 200 && proc.alive(); i++) await new Promise((r) => setTimeout(r, 50));
        if (proc.alive()) throw new Error(`worker ${index} (pid ${proc.pid}) still runs after ${signal}`);
      },
      async startWorker(index) {
        if (index < 0 || index >= workerCount) throw new Error(`no worker ${index} (the stack has ${workerCount})`);
        if (running.get(`worker-${index}`)?.alive()) throw new Error(`worker ${index} is running`);
        // The same port, so urls.workerMetrics[index] stays right.
        await startWorkerProcess(index, Number(new URL(workers[index]!).port));
      },
      async stopQueue() {
        await running.get('queue-redis')!.stop(30_000);
      },
      async startQueue() {
        if (running.get('queue-redis')!.alive()) throw new Error("the queue's Redis is running");
        const again = await startQueueRedis(queue.dir, { port: queue.port });
        running.set('queue-redis', again.process);
      },
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
