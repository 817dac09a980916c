// `npm start -- [NAME...]`: runs the named functions (all by default) in one process, on one
// HTTP server (PORT) with /healthz, /readyz and /metrics. Settings come from the environment
// (functions/start-config.ts), read once here. SIGTERM/SIGINT drain in-flight work and exit.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { listen, notFound, probeRoutes, type Probe } from '../shared/io/http.ts';
import { createLogger } from '../shared/io/log.ts';
import { createRegistry } from '../shared/io/metrics.ts';
import type { RunningFunction, StartFunction } from './function-context.ts';
import { ConfigError, readConfig } from './start-config.ts';

// Each function is loaded only when named: a process running ingest alone never loads the
// reconciler's or the webhooks' code and libraries (its cold start is what scale-from-zero waits for).
const loaders = {
  ingest: () => import('./ingest/index.ts'),
  reconcile: () => import('./reconcile/index.ts'),
  'event-source': () => import('./event-source/index.ts'),
  webhooks: () => import('./webhooks/index.ts'),
  dashboard: () => import('./dashboard/index.ts'),
} satisfies Record<string, () => Promise<{ start: StartFunction }>>;

export const functionNames = Object.keys(loaders) as (keyof typeof loaders)[];

export async function main(argv: string[], env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const unknown = argv.filter((name) => !(functionNames as readonly string[]).includes(name));
  if (unknown.length > 0) {
    console.error(
      `unknown function(s): ${unknown.join(', ')}\nusage: npm start -- [${functionNames.join('|')}]...  (all when none is named)`,
    );
    process.exit(2);
  }
  const names = argv.length > 0 ? [...new Set(argv as (keyof typeof loaders)[])] : [...functionNames];
  let config;
  try {
    config = readConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
  const log = createLogger({ level: config.logLevel });
  const registry = createRegistry();
  const probes: Probe[] = [];
  // The probes and /metrics are plain node:http routes; express is loaded only when a function
  // mounts routes on it (the dashboard), so ingest's cold start does not pay for it.
  const direct = new Map<`${string} /${string}`, RequestListener>(probeRoutes({ registry, probes: () => probes }));
  let app: Promise<Express> | undefined;
  const expressApp = () => (app ??= import('../shared/io/express-app.ts').then((m) => m.createHttpApp({})));
  const running: { name: string; fn: RunningFunction }[] = [];

  const stopAll = async () => {
    for (const { name, fn } of running.reverse()) {
      await fn.close().catch((error: unknown) => log.error({ err: error, fn: name }, 'close failed'));
    }
  };
  try {
    for (const name of names) {
      const module = await loaders[name]();
      running.push({
        name,
        fn: await module.start({
          config,
          log: log.child({ fn: name }),
          expressApp,
          registry,
          env,
          addProbe: (p) => probes.push(p),
          serveDirect: (route, handler) => direct.set(route, handler),
        }),
      });
    }
  } catch (error) {
    log.fatal({ err: error }, 'start-up failed');
    await stopAll();
    process.exit(1);
  }
  // A path no route takes gets the same JSON 404 whether express was loaded or not.
  const fallback = app ? (await app).use((req: IncomingMessage, res: ServerResponse) => notFound(req, res)) : notFound;
  const server = await listen(fallback, config.port, config.host, direct);
  log.info({ functions: names, url: server.url }, 'knredis started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'draining');
    await server.close();
    await stopAll();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

await main(process.argv.slice(2), process.env);
